package agentv1

import (
	"net/http"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterDisputes adds Variant B's dispute route.
func (a *API) RegisterDisputes(rt *httpapi.Router) {
	rt.Handle("POST", Prefix+"/orders/{id}/dispute", httpapi.Either, a.openDispute)
}

// dispute is Variant B's dispute: Variant A's fields in snake_case.
type dispute struct {
	ID                   string     `json:"id"`
	OrderID              string     `json:"order_id"`
	BuyerID              string     `json:"buyer_id"`
	SellerID             string     `json:"seller_id"`
	Status               string     `json:"status" enum:"open,seller_responded,resolved"`
	Reason               string     `json:"reason" enum:"not_received,not_as_described,damaged,counterfeit,other"`
	Description          string     `json:"description"`
	EvidencePhotos       []string   `json:"evidence_photos" doc:"The buyer's photo URLs."`
	SellerResponse       *string    `json:"seller_response"`
	SellerEvidencePhotos []string   `json:"seller_evidence_photos"`
	RespondedAt          *time.Time `json:"responded_at"`
	Resolution           *string    `json:"resolution" enum:"refund_buyer,release_seller,partial_refund" doc:"'refund_buyer' (full refund), 'release_seller' (nothing refunded), 'partial_refund'."`
	ResolutionAmount     *int64     `json:"resolution_amount" minimum:"0" doc:"Cents refunded by the resolution (0 for 'release_seller'); null until resolved."`
	ResolutionNote       *string    `json:"resolution_note"`
	ResolvedBy           *string    `json:"resolved_by"`
	ResolvedAt           *time.Time `json:"resolved_at"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

func (a *API) toDispute(d *orders.Dispute) dispute {
	urls := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = a.Photos.PhotoURL(id)
		}
		return out
	}
	return dispute{ID: d.ID, OrderID: d.OrderID, BuyerID: d.BuyerID, SellerID: d.SellerID, Status: string(d.Status),
		Reason: d.Reason, Description: d.Description, EvidencePhotos: urls(d.PhotoIDs),
		SellerResponse: strOrNil(d.SellerResponse), SellerEvidencePhotos: urls(d.SellerPhotoIDs),
		RespondedAt: d.RespondedAt, Resolution: strOrNil(string(d.Resolution)), ResolutionAmount: d.ResolutionAmount,
		ResolutionNote: strOrNil(d.ResolutionNote), ResolvedBy: strOrNil(d.ResolvedBy), ResolvedAt: d.ResolvedAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

type disputeBody struct {
	Reason         string   `json:"reason" enum:"not_received,not_as_described,damaged,counterfeit,other" required:"true"`
	Description    string   `json:"description" minLength:"1" maxLength:"2000" required:"true" doc:"What went wrong; leading and trailing spaces are dropped."`
	EvidencePhotos []string `json:"evidence_photos" maxItems:"8" uniqueItems:"true" nullable:"true" doc:"Photo URLs uploaded by the caller's owner to this service."`
}

// openDispute is POST /v1/orders/{id}/dispute: the buyer (an agent with buy
// scope, or the human) disputes the order.
func (a *API) openDispute(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.RequireScope(r, agents.OpBuy); err != nil {
		return err
	}
	var b disputeBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := r.PathValue("id")
	httpapi.Entity(r, "order", id)
	return a.writeNewDispute(w, r, actor(r), a.disputeInput(id, &b))
}

// disputeInput is the buyer's dispute body for order id, as the route and
// the open_dispute tool read it.
func (a *API) disputeInput(id string, b *disputeBody) orders.DisputeInput {
	ids := make([]string, len(b.EvidencePhotos))
	for i, u := range b.EvidencePhotos {
		ids[i], _ = a.Photos.PhotoID(u) // "" is reported by position
	}
	return orders.DisputeInput{OrderID: id, Reason: b.Reason, Description: b.Description, PhotoIDs: ids}
}

func (a *API) writeNewDispute(w http.ResponseWriter, r *http.Request, as market.Actor, in orders.DisputeInput) error {
	d, err := a.Orders.OpenDispute(r.Context(), as, in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "dispute", d.ID)
	return httpapi.OK(w, r, http.StatusCreated, a.toDispute(d))
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
	return sb.api.writeNewDispute(w, r, market.System, orders.DisputeInput{OrderID: id, Reason: "not_received",
		Description: SimulatedDisputeText})
}
