package console

import "marketplace/internal/httpapi"

// buyingRoutes adds the pages of browse and search, a listing, watch, offer, buy.
func (c *Console) buyingRoutes(rt *httpapi.Router) {
}
