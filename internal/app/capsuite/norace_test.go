//go:build !race

package capsuite_test

// defaultTrials is the randomized trials per engine when neither
// -caps.trials nor CAPS_TRIALS says otherwise.
const defaultTrials = 1000
