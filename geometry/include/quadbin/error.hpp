#pragma once
/// \file
/// The one exception type quadbin throws for refused input.

#include <stdexcept>
#include <string>

namespace quadbin {

/// Thrown at the API boundary when an argument is refused (NaN position,
/// radius <= 0, stale body id, ...). The message names the offending field
/// and its value; a call that throws leaves the object it was called on
/// exactly as it was.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace quadbin
