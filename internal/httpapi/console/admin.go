package console

import "marketplace/internal/httpapi"

// adminRoutes adds the pages of the admin's pages.
func (c *Console) adminRoutes(rt *httpapi.Router) {
}
