package console

import "marketplace/internal/httpapi"

// settingsRoutes adds the pages of the signed-in person's settings: profile, password, notification preferences.
func (c *Console) settingsRoutes(rt *httpapi.Router) {
}
