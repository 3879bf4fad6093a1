// Entry point of tk_unit_tests: every other tests/unit/*.cpp contributes
// doctest TEST_CASEs (include <doctest/doctest.h> only).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
