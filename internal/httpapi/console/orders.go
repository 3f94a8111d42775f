package console

import "marketplace/internal/httpapi"

// orderRoutes adds the pages of orders as buyer and seller, shipping, refunds, disputes, payouts.
func (c *Console) orderRoutes(rt *httpapi.Router) {
}
