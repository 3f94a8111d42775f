package apiv1

import (
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// adminPageMeta is the meta of an admin list whose filters are filters (the
// query's values, "" when unset). A filtered total is counted only up to
// offset+market.CountBound: one past that means "more", and
// meta.totalCapped says so. An unfiltered total is always exact.
func adminPageMeta(total, limit, offset int, filters ...string) httpapi.Meta {
	m := httpapi.PageMeta(total, limit, offset)
	for _, f := range filters {
		if f != "" {
			if total > max(offset, 0)+market.CountBound {
				m["totalCapped"] = true
			}
			break
		}
	}
	return m
}
