package apiv1

import (
	"context"
	"net/http"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
)

type watchState struct {
	Watching      bool `json:"watching"`
	WatchersCount int  `json:"watchersCount" minimum:"0"`
}

func (a *API) watch(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.Listings.Watch)
}

func (a *API) unwatch(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.Listings.Unwatch)
}

func (a *API) watching(w http.ResponseWriter, r *http.Request) error {
	return a.watchCall(w, r, a.Listings.Watching)
}

func (a *API) watchCall(w http.ResponseWriter, r *http.Request,
	fn func(context.Context, market.Actor, string) (listings.WatchState, error)) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "listing", id)
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	st, err := fn(r.Context(), actor(r).Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, watchState{Watching: st.Watching, WatchersCount: st.WatchersCount})
}

// watchedListings is GET /listings/watching/me and GET /agent/listings/watching.
func (a *API) watchedListings(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	ls, total, err := a.Listings.Watched(r.Context(), actor(r).Actor, limit, offset)
	if err != nil {
		return err
	}
	return a.writeListingPage(w, r, ls, total, limit, offset)
}
