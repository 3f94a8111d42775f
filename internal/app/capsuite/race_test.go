//go:build race

package capsuite_test

// defaultTrials under the race detector, which slows every request about
// tenfold: the race run checks the suite's concurrency, and CI runs the
// full 1,000 trials per engine without it (.ci/run).
const defaultTrials = 100
