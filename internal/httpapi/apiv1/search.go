package apiv1

import (
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

// search is GET /listings: full-text search and browse of active listings,
// paged by cursor (CONTRACT.md section 6). meta carries the cursor (null on
// the last page) and the limit; no total, which would mean counting every
// match of a broad query (Variant B's search has one).
func (a *API) search(w http.ResponseWriter, r *http.Request) error {
	p, err := listings.ParseSearch(r.URL.Query())
	if err != nil {
		return err
	}
	p.NoTotal = true
	page, err := a.ListingOps().Search(r.Context(), actor(r), p)
	if err != nil {
		return err
	}
	var cursor *string
	if page.Cursor != "" {
		cursor = &page.Cursor
	}
	return httpapi.OKMeta(w, r, http.StatusOK, page.Listings, httpapi.Meta{"cursor": cursor, "limit": p.Limit})
}
