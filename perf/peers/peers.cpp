// The registry of peer engines and baselines the perf suite compares with.
// Each peer is compiled in when its library is found (see perf/CMakeLists.txt).
#include "../structures.hpp"

namespace quadbin::perf {

std::vector<std::string> peerNames() { return {}; }

std::unique_ptr<Structure> makePeer(std::string_view /*name*/) { return nullptr; }

}  // namespace quadbin::perf
