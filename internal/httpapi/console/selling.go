package console

import "marketplace/internal/httpapi"

// sellingRoutes adds the pages of the seller's listings (create from photos, edit, archive), offers and messages.
func (c *Console) sellingRoutes(rt *httpapi.Router) {
}
