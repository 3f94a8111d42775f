package httpapi

import (
	"net/http"
	"strconv"

	"marketplace/internal/market"
)

// Offset paging bounds for lists that page by limit and offset.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Page reads limit (1..MaxLimit, default DefaultLimit) and offset (0 or
// more) from the query string.
func Page(r *http.Request) (limit, offset int, err error) {
	var c market.Check
	q := r.URL.Query()
	limit, offset = DefaultLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if c.Require(err == nil && n >= 1 && n <= MaxLimit, "limit", "must be a whole number from 1 to "+strconv.Itoa(MaxLimit)) {
			limit = n
		}
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if c.Require(err == nil && n >= 0, "offset", "must be a whole number, 0 or more") {
			offset = n
		}
	}
	return limit, offset, c.Err()
}

// PageMeta is the meta of an offset-paged list in Variant A.
func PageMeta(total, limit, offset int) Meta {
	return Meta{"total": total, "limit": limit, "offset": offset}
}
