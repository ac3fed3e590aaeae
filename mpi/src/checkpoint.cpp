// DistributedWorld::checkpoint and restore. A checkpoint is a folder of one
// file per rank (its World's snapshot, what it holds each body as, its own
// balls and, on rank 0, the shared bodies in a form any number of ranks can
// read) and `current`, the name of the last complete checkpoint, replaced
// by a rename only after every rank has written and flushed its file.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <quadbin/error.hpp>
#include <string>

#include "distributed_impl.hpp"

namespace quadbin::mpi {

namespace fs = std::filesystem;
using detail::append;
using detail::records;
using Role = detail::Role;
using detail::BallRecord;

namespace {

constexpr std::uint64_t kMagic = 0x31495043'4e494251ull;  // "QBINCPI1"
constexpr std::uint32_t kVersion = 1;

struct Header {
  std::uint64_t magic = kMagic;
  std::uint32_t version = kVersion;
  std::int32_t ranks = 0;
  std::uint64_t fingerprint = 0;
  std::uint64_t nextId = 0;
  std::uint64_t cuts = 0;
  std::uint64_t snapshotBytes = 0;
  std::uint64_t entries = 0;
  std::uint64_t portable = 0;
};

// What a rank's World holds at one slot.
struct Entry {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
  GlobalId id = 0;
  Role role = Role::None;
  BodyDef def;
};

// A body any number of ranks can take back: a ball (its owner's state) or
// a shared body (rank 0's).
struct Portable {
  BallRecord ball;
  std::uint8_t shared = 0;
};

std::uint64_t checksum(std::span<const std::byte> bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const std::byte b : bytes) h = (h ^ std::to_integer<std::uint64_t>(b)) * 1099511628211ull;
  return h;
}

// Writes the bytes to `path` through a temporary file, flushed to the disk
// before the rename; "" or what failed.
std::string writeFile(const fs::path& path, std::span<const std::byte> bytes) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return "cannot create " + tmp.string() + ": " + std::strerror(errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      ::close(fd);
      return "cannot write " + tmp.string() + ": " + std::strerror(errno);
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) return "cannot flush " + tmp.string();
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return ec ? "cannot rename " + tmp.string() + ": " + ec.message() : "";
}

std::string readFile(const fs::path& path, std::vector<std::byte>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open " + path.string();
  in.seekg(0, std::ios::end);
  out.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  return in ? "" : "cannot read " + path.string();
}

fs::path rankFile(const fs::path& folder, int rank) {
  return folder / ("rank-" + std::to_string(rank) + ".bin");
}

// One rank's file, read back and checked.
struct RankFile {
  Header header;
  std::vector<double> cuts;
  std::span<const std::byte> snapshot;
  std::vector<Entry> entries;
  std::vector<Portable> portable;
  std::vector<std::byte> bytes;
};

std::string parse(RankFile& f) {
  const std::vector<std::byte>& b = f.bytes;
  if (b.size() < sizeof(Header) + 8) return "too short";
  const std::size_t body = b.size() - 8;
  std::uint64_t sum = 0;
  std::memcpy(&sum, b.data() + body, 8);
  if (sum != checksum(std::span(b).first(body))) return "checksum differs (damaged)";
  std::memcpy(&f.header, b.data(), sizeof(Header));
  const Header& h = f.header;
  if (h.magic != kMagic || h.version != kVersion) return "not a quadbin::mpi checkpoint";
  const std::size_t need = sizeof(Header) + h.cuts * sizeof(double) + h.snapshotBytes +
                           h.entries * sizeof(Entry) + h.portable * sizeof(Portable);
  if (need != body) return "sizes do not add up";
  std::size_t at = sizeof(Header);
  f.cuts = records<double>(std::span(b).subspan(at, h.cuts * sizeof(double)));
  at += h.cuts * sizeof(double);
  f.snapshot = std::span(b).subspan(at, h.snapshotBytes);
  at += h.snapshotBytes;
  f.entries = records<Entry>(std::span(b).subspan(at, h.entries * sizeof(Entry)));
  at += h.entries * sizeof(Entry);
  f.portable = records<Portable>(std::span(b).subspan(at, h.portable * sizeof(Portable)));
  return "";
}

std::string load(const fs::path& folder, int rank, RankFile& f) {
  std::string why = readFile(rankFile(folder, rank), f.bytes);
  if (why.empty()) why = parse(f);
  return why.empty() ? "" : rankFile(folder, rank).string() + ": " + why;
}

// Rank 0's string on every rank.
std::string fromRoot(MPI_Comm comm, const std::string& mine) {
  std::uint64_t n = mine.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
  std::string out = mine;
  out.resize(n);
  MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  return out;
}

}  // namespace

void DistributedWorld::checkpoint(const std::string& dir) {
  Impl& w = *impl_;
  const fs::path root(dir);
  // Rank 0 names the new folder: one past the current one's number.
  std::string name, failure;
  if (w.rank == 0) {
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) failure = "cannot create " + root.string() + ": " + ec.message();
    std::uint64_t serial = 0;
    std::ifstream current(root / "current");
    std::string last;
    if (current >> last && last.rfind("checkpoint-", 0) == 0) {
      serial = std::stoull(last.substr(11)) + 1;
    }
    name = "checkpoint-" + std::to_string(serial);
    fs::remove_all(root / name, ec);  // one an earlier run left unfinished
    fs::create_directories(root / name, ec);
    if (ec && failure.empty()) failure = "cannot create " + (root / name).string();
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::checkpoint: " + failure);
  name = fromRoot(w.comm, name);
  // This rank's file.
  std::vector<std::byte> out;
  const std::vector<std::byte> snapshot = w.world.snapshot();
  std::vector<Entry> entries;
  std::vector<Portable> portable;
  for (std::uint32_t i = 0; i < w.world.bodyCount(); ++i) {
    const BodyId id = w.world.bodyAt(i);
    entries.push_back({id.index, id.generation, w.gidOf[id.index], w.role(id), w.defOf[id.index]});
    const Role r = w.role(id);
    if (r == Role::Owned || (r == Role::Shared && w.rank == 0)) {
      Portable p{w.recordOf(id), static_cast<std::uint8_t>(r == Role::Shared)};
      portable.push_back(p);
    }
  }
  Header h;
  h.ranks = w.ranks;
  h.fingerprint = detail::fingerprint(w.def);
  h.nextId = w.nextId;
  h.cuts = w.strips.cuts().size();
  h.snapshotBytes = snapshot.size();
  h.entries = entries.size();
  h.portable = portable.size();
  append(out, h);
  for (const double c : w.strips.cuts()) append(out, c);
  out.insert(out.end(), snapshot.begin(), snapshot.end());
  for (const Entry& e : entries) append(out, e);
  for (const Portable& p : portable) append(out, p);
  append(out, checksum(out));
  failure = detail::agreeOnFailure(w.comm, writeFile(rankFile(root / name, w.rank), out));
  if (!failure.empty()) throw Error("DistributedWorld::checkpoint: " + failure);
  // Every part is on the disk: the switch.
  if (w.rank == 0) {
    std::string previous;
    std::ifstream(root / "current") >> previous;
    const std::string text = name + "\n";
    failure = writeFile(root / "current", std::as_bytes(std::span(text)));
    if (failure.empty() && !previous.empty() && previous != name) {
      std::error_code ec;
      fs::remove_all(root / previous, ec);
    }
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::checkpoint: " + failure);
}

void DistributedWorld::restore(const std::string& dir) {
  Impl& w = *impl_;
  const fs::path root(dir);
  std::string name;
  if (w.rank == 0) std::ifstream(root / "current") >> name;
  name = fromRoot(w.comm, name);
  std::string failure = name.empty() ? "no complete checkpoint in " + root.string() : "";
  // Rank 0's file says how many ranks wrote it.
  RankFile first;
  if (failure.empty()) failure = load(root / name, 0, first);
  if (failure.empty() && first.header.fingerprint != detail::fingerprint(w.def)) {
    failure = "written by a world of other settings";
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::restore: " + failure);
  const int writers = first.header.ranks;
  if (writers == w.ranks) {
    // The same ranks: each takes its own World back, bit for bit.
    RankFile mine;
    failure = w.rank == 0 ? "" : load(root / name, w.rank, mine);
    if (failure.empty() && mine.header.ranks != writers && w.rank != 0) failure = "ranks differ";
    const RankFile& f = w.rank == 0 ? first : mine;
    failure = detail::agreeOnFailure(w.comm, failure);
    if (!failure.empty()) throw Error("DistributedWorld::restore: " + failure);
    try {
      w.world.restore(f.snapshot);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    failure = detail::agreeOnFailure(w.comm, failure);
    if (!failure.empty()) throw Error("DistributedWorld::restore: " + failure);
    w.resetTables();
    for (const Entry& e : f.entries) {
      w.hold(BodyId{e.index, e.generation, w.world.id()}, e.id, e.role, e.def);
    }
    w.strips.setCuts(f.cuts);
    w.nextId = f.header.nextId;
    return;
  }
  // Other ranks: every rank reads every file's bodies and keeps its own.
  std::vector<Portable> all = first.portable;
  for (int q = 1; q < writers && failure.empty(); ++q) {
    RankFile f;
    failure = load(root / name, q, f);
    all.insert(all.end(), f.portable.begin(), f.portable.end());
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::restore: " + failure);
  std::sort(all.begin(), all.end(),
            [](const Portable& a, const Portable& b) { return a.ball.id < b.ball.id; });
  w.restart(all.size() == 0 ? 0 : first.header.nextId);
  std::vector<double> xs;
  for (const Portable& p : all) {
    if (p.shared == 0) xs.push_back(p.ball.def.position.x);
  }
  w.strips.setCuts(
      detail::evenCuts(xs, w.ranks, w.def.world.bounds.min.x, w.def.world.bounds.max.x));
  std::vector<BallRecord> shared, owned;
  for (const Portable& p : all) {
    if (p.shared != 0) {
      shared.push_back(p.ball);
    } else if (w.strips.owner(p.ball.def.position.x) == w.rank) {
      owned.push_back(p.ball);
    }
  }
  w.createSorted(shared, owned);
  w.nextId = first.header.nextId;
  if (w.ranks > 1) w.orderBodies(true);
}

}  // namespace quadbin::mpi
