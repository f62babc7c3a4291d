"""Test helpers shared by the test suites and the benchmarks."""
