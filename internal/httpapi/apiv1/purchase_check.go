package apiv1

import (
	"net/http"

	"marketplace/internal/httpapi"
)

// checkPurchase is POST /agent/purchase/check: the purchase dry run. A
// refusal the purchase would give is the answer's code (200); the call's own
// refusals (credentials, scope, a body that is not JSON) are errors as on
// the purchase route. A refusal inside the answer is spelled as the
// purchase's envelope.
func (a *API) checkPurchase(w http.ResponseWriter, r *http.Request) error {
	var b purchaseBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "listing", b.ListingID)
	return httpapi.Reply(w, r, http.StatusOK).With(a.OrderOps().Check(r.Context(), actor(r), b.input(),
		Surface.DetailsOf("POST "+Prefix+"/agent/purchase")))
}
