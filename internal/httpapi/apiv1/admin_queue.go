package apiv1

import (
	"net/http"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// The admin approval queue. Its items are purchase approvals (type
// purchase_approval): the same items owners decide at /approvals.

// queueTypes are the item types the queue holds.
var queueTypes = map[string]bool{"purchase_approval": true}

// adminQueue is GET /admin/queue?status=&type=&limit=&offset=.
func (a *API) adminQueue(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	if t := r.URL.Query().Get("type"); t != "" && !queueTypes[t] {
		return market.Invalid(market.FieldError{Field: "type", Message: "must be purchase_approval"})
	}
	p := actor(r)
	vs, total, err := a.Orders.Queue(r.Context(), p.Actor, r.URL.Query().Get("status"), limit, offset)
	if err != nil {
		return err
	}
	out := make([]approval, len(vs))
	for i, v := range vs {
		out[i] = toApproval(v, p.User.ID)
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}
