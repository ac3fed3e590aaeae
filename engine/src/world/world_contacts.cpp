// World::contacts and contactsOf: the solver's touching contacts as
// ContactData, their geometry from the current positions.
#include "bodies/ball_geometry.hpp"
#include "world/world_impl.hpp"

namespace quadbin {

namespace {

// Contact c's point and normal (a to b), from the bodies' positions now.
void geometry(const BodyStore& s, const contacts::Contact& c, ContactData& out) {
  const std::uint32_t a = c.a;
  const Vec2 pa{s.px[a], s.py[a]};
  const float ra = s.radius[a];
  if (contacts::isWall(c.b)) {
    const std::uint32_t side = contacts::wallSide(c.b);
    const float sign = side % 2 == 0 ? -1.0f : 1.0f;
    out.normal = side < 2 ? Vec2{sign, 0.0f} : Vec2{0.0f, sign};
    out.point = pa + out.normal * ra;
    out.wall = static_cast<WallSide>(side + 1);
    return;
  }
  const std::uint32_t b = c.b;
  if (s.isCircle(b)) {
    const Vec2 d = Vec2{s.px[b], s.py[b]} - pa;
    const float len = length(d);
    out.normal = len > 0.0f ? d / len : apartDirection(a, b);
    // Midway between the two surfaces along the line of centres.
    out.point = pa + out.normal * (ra + 0.5f * (len - ra - s.radius[b]));
    return;
  }
  const auto [n, q] = solid::ballTo(solid::of(s, b), pa);
  out.normal = n;
  out.point = q;
}

}  // namespace

std::span<const ContactData> World::Impl::contactData() {
  return views.contacts([&](std::vector<ContactData>& out) {
    std::size_t walls = 0;
    for (const contacts::Contact& c : contactSet.contacts()) {
      if (c.touched == 0) continue;
      ContactData d;
      d.a = bodyIdAt(c.a);
      if (!contacts::isWall(c.b)) {
        d.b = bodyIdAt(c.b);
      } else {
        ++walls;
      }
      geometry(bodies, c, d);
      d.normalImpulse = c.lambda;
      d.tangentImpulse = c.tangent;
      out.push_back(d);
    }
    // Walls last, in the bodies' order (the list is by dense index already).
    if (walls > 0) {
      std::stable_partition(out.begin(), out.end(),
                            [](const ContactData& d) { return d.wall == WallSide::None; });
    }
  });
}

std::span<const ContactData> World::contacts() const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.contactData();
}

void World::contactsOf(BodyId id, std::vector<ContactData>& out) const {
  Impl& w = live();
  const auto use = w.claimRead();
  (void)w.denseIndex(id);
  out.clear();
  for (const ContactData& d : w.contactData()) {
    if (d.a == id || d.b == id) out.push_back(d);
  }
}

}  // namespace quadbin
