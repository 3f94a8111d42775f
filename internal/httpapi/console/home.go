package console

import (
	"net/http"

	"marketplace/internal/listings"
)

// homeData is the front page: the newest listings on sale.
type homeData struct {
	Listings cardGrid
}

func (c *Console) homePage(v *visit) error {
	p, err := c.Ops.ListingOps().Search(v.r.Context(), v.callerOrNil(), listings.SearchParams{Limit: 24, NoTotal: true})
	if err != nil {
		return err
	}
	return c.render(v, http.StatusOK, "home", homeData{Listings: cardGrid{Cards: cardsOf(p)}})
}
