package agentv1

import (
	"net/http"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// RegisterDisputes adds Variant B's dispute route.
func (a *API) RegisterDisputes(rt *httpapi.Router) {
	rt = rt.In("disputes")
	rt.Scope(agents.OpBuy).Handle("POST", Prefix+"/orders/{id}/dispute", httpapi.Either, a.openDispute)
}

type disputeBody struct {
	Reason         string   `json:"reason" enum:"not_received,not_as_described,damaged,counterfeit,other" required:"true"`
	Description    string   `json:"description" minLength:"1" maxLength:"2000" required:"true" doc:"What went wrong; leading and trailing spaces are dropped."`
	EvidencePhotos []string `json:"evidence_photos" maxItems:"8" uniqueItems:"true" nullable:"true" doc:"Photo URLs uploaded by the caller's owner to this service."`
}

// openDispute is POST /v1/orders/{id}/dispute: the buyer (an agent with buy
// scope, or the human) disputes the order.
func (a *API) openDispute(w http.ResponseWriter, r *http.Request) error {
	var b disputeBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "order")
	return a.writeNewDispute(w, r, httpapi.PrincipalOf(r), api.DisputeOpening{OrderID: id, Reason: b.Reason,
		Description: b.Description, EvidencePhotos: b.EvidencePhotos})
}

func (a *API) writeNewDispute(w http.ResponseWriter, r *http.Request, as *api.Caller, in api.DisputeOpening) error {
	d, err := a.DisputeOps().Open(r.Context(), as, in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "dispute", d.ID)
	return httpapi.OK(w, r, http.StatusCreated, d)
}

// SimulatedDisputeText is the description of a sandbox-simulated dispute.
const SimulatedDisputeText = "Simulated dispute (sandbox): the buyer reports the item was not received."

// simulateDispute is POST /v1/sandbox/simulate/dispute/{order_id}: a dispute
// opened for the order's buyer, reason not_received, as OpenDispute does it
// (the order becomes disputed, its payout frozen). The caller must be the
// order's buyer or seller; the opening itself is the sandbox's, made as the
// system.
func (sb *sandboxOps) simulateDispute(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("order_id")
	httpapi.Entity(r, "order", id)
	p := httpapi.PrincipalOf(r)
	o, err := sb.api.Orders.Get(r.Context(), p.Actor, id)
	if err != nil {
		return err
	}
	if o.Role(p.User.ID) == "" {
		return market.Errorf(market.CodeForbidden, "only the order's buyer or seller may simulate a dispute")
	}
	return sb.api.writeNewDispute(w, r, &api.Caller{Actor: market.System}, api.DisputeOpening{OrderID: id,
		Reason: "not_received", Description: SimulatedDisputeText})
}
