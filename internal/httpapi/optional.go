package httpapi

import "marketplace/internal/market"

// Opt is market.Opt: a JSON field that can be absent, null or a value.
type Opt[T any] = market.Opt[T]
