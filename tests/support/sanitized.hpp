// Whether this test build runs under a sanitizer (ASan, UBSan's companion
// ASan build, or TSan), where a step is 5-20 times slower and the point is
// memory errors and races, which a shorter run of the same code already
// exercises; the optimised Release build runs every test at full length.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QUADBIN_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define QUADBIN_TEST_SANITIZED 1
#endif
#endif

namespace quadbin::test {

#if defined(QUADBIN_TEST_SANITIZED)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace quadbin::test
