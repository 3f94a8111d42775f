package apiv1

import (
	"net/http"

	"marketplace/internal/market"
)

// The admin approval queue. Its items are purchase approvals (type
// purchase_approval): the same items owners decide at /approvals.

// queueTypes are the item types the queue holds.
var queueTypes = map[string]bool{"purchase_approval": true}

// adminQueue is GET /admin/queue?status=&type=&limit=&offset=.
func (a *API) adminQueue(w http.ResponseWriter, r *http.Request) error {
	if t := r.URL.Query().Get("type"); t != "" && !queueTypes[t] {
		return market.Invalid(market.FieldError{Field: "type", Message: "must be purchase_approval"})
	}
	return a.writeApprovals(w, r, a.Orders.Queue)
}
