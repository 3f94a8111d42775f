package apiv1

import (
	"context"
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

func (a *API) watch(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.ListingOps().Watch)
}

func (a *API) unwatch(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.ListingOps().Unwatch)
}

func (a *API) watching(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.ListingOps().Watching)
}

func (a *API) watchCall(w http.ResponseWriter, r *http.Request,
	fn func(context.Context, *api.Caller, string) (*api.WatchState, error)) error {
	id := httpapi.PathEntity(r, "listing")
	return httpapi.Reply(w, r, http.StatusOK).With(fn(r.Context(), actor(r), id))
}

// watchedListings is GET /listings/watching/me and GET /agent/listings/watching.
func (a *API) watchedListings(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	page, err := a.ListingOps().Watched(r.Context(), actor(r), limit, offset)
	return writeListingPage(w, r, page, err, limit, offset)
}
