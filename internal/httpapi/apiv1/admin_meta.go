package apiv1

import (
	"marketplace/internal/httpapi"
)

// adminPageMeta is the meta of an admin list whose filters are filters (the
// query's values, "" when unset). A filtered total is counted only up to
// offset+bound (market.CountBound, or less for some searches): one past
// that means "more", and meta.totalCapped says so. An unfiltered total is
// always exact.
func adminPageMeta(total, limit, offset, bound int, filters ...string) httpapi.Meta {
	m := httpapi.PageMeta(total, limit, offset)
	for _, f := range filters {
		if f != "" {
			if total > max(offset, 0)+bound {
				m["totalCapped"] = true
			}
			break
		}
	}
	return m
}
