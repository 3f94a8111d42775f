package market

// Cents is an amount of money in the smallest currency unit. There are no
// floats anywhere near money.
type Cents = int64

// RoundDiv divides a by b rounding half up, on integers (a, b >= 0).
func RoundDiv(a, b int64) int64 {
	return (2*a + b) / (2 * b)
}
