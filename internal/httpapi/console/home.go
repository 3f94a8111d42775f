package console

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/listings"
)

// homeData is the front page: the newest listings on sale.
type homeData struct {
	Listings []*api.Listing
}

func (c *Console) homePage(v *visit) error {
	var caller *api.Caller
	if v.user != nil {
		caller = v.caller()
	}
	p, err := c.Ops.ListingOps().Search(v.r.Context(), caller, listings.SearchParams{Limit: 24, NoTotal: true})
	if err != nil {
		return err
	}
	d := homeData{}
	for _, l := range p.Listings {
		if lv, ok := l.(api.ListingView); ok {
			d.Listings = append(d.Listings, lv.Base())
		}
	}
	return c.render(v, http.StatusOK, "home", d)
}
