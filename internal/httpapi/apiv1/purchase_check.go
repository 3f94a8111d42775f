package apiv1

import (
	"net/http"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// checkRoute is the route whose error spellings a dry run's details use.
const checkRoute = "POST " + Prefix + "/agent/purchase"

// checkDetails spells a dry run's refusal details as the purchase's error
// envelope does.
func checkDetails(e *market.Error) map[string]any { return Surface.Details(checkRoute, e) }

// checkPurchase is POST /agent/purchase/check: the purchase dry run. A
// refusal the purchase would give is the answer's code (200); the call's own
// refusals (credentials, scope, a body that is not JSON) are errors as on
// the purchase route.
func (a *API) checkPurchase(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	out, err := a.OrderOps().Check(r.Context(), actor(r), b.input(), checkDetails)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}
