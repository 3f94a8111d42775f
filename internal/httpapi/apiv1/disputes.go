package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterDisputes adds the dispute routes: the buyer opens, the seller
// responds, an admin resolves.
func (a *API) RegisterDisputes(rt *httpapi.Router) {
	p := Prefix
	rt.In("disputes").Handle("POST", p+"/disputes", httpapi.Bearer, a.openDispute)
	rt.In("disputes").Handle("GET", p+"/disputes/my", httpapi.Bearer, a.myDisputes)
	rt.In("disputes").Handle("GET", p+"/disputes/{id}", httpapi.Bearer, a.getDispute)
	rt.In("disputes").Handle("POST", p+"/disputes/{id}/respond", httpapi.Bearer, a.respondDispute)
	rt.In("admin").Handle("GET", p+"/admin/disputes", httpapi.Admin, a.adminDisputes)
	rt.In("admin").Handle("GET", p+"/admin/disputes/{id}", httpapi.Admin, a.adminDispute)
	rt.In("admin").Handle("POST", p+"/admin/disputes/{id}/resolve", httpapi.Admin, a.resolveDispute)
}

type openDisputeBody struct {
	OrderID        string   `json:"orderId" required:"true"`
	Reason         string   `json:"reason" ref:"DisputeReason" required:"true"`
	Description    string   `json:"description" minLength:"1" maxLength:"2000" required:"true" doc:"What went wrong; leading and trailing spaces are dropped."`
	EvidencePhotos []string `json:"evidencePhotos" ref:"DisputePhotos"`
}

// openDispute is POST /disputes (CreateDisputeDto).
func (a *API) openDispute(w http.ResponseWriter, r *http.Request) error {
	var b openDisputeBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	httpapi.Entity(r, "order", b.OrderID)
	d, err := a.DisputeOps().Open(r.Context(), actor(r), api.DisputeOpening{OrderID: b.OrderID, Reason: b.Reason,
		Description: b.Description, EvidencePhotos: b.EvidencePhotos})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "dispute", d.ID)
	return httpapi.OK(w, r, http.StatusCreated, d)
}

type respondBody struct {
	Response       string   `json:"response" minLength:"1" maxLength:"2000" required:"true" doc:"The seller's side; leading and trailing spaces are dropped."`
	EvidencePhotos []string `json:"evidencePhotos" ref:"DisputePhotos"`
}

// respondDispute is POST /disputes/{id}/respond: the seller's answer.
func (a *API) respondDispute(w http.ResponseWriter, r *http.Request) error {
	var b respondBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "dispute")
	return httpapi.Reply(w, r, http.StatusOK).With(a.DisputeOps().Respond(r.Context(), actor(r), id, b.Response, b.EvidencePhotos))
}

func (a *API) getDispute(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.DisputeOps().Get(r.Context(), actor(r), r.PathValue("id")))
}

// myDisputes is GET /disputes/my?role=&status=&limit=&offset=.
func (a *API) myDisputes(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ds, total, err := a.DisputeOps().Mine(r.Context(), actor(r), q.Get("role"), q.Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, ds, httpapi.PageMeta(total, limit, offset))
}

func (a *API) adminDisputes(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	ds, total, err := a.DisputeOps().All(r.Context(), actor(r), r.URL.Query().Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, ds, httpapi.PageMeta(total, limit, offset))
}

// disputeDetail is the admin's view: the dispute with its order, where the
// seller's money stands, and the order's timeline.
type disputeDetail struct {
	api.Dispute
	Order  api.Order           `json:"order"`
	Payout disputePayout       `json:"payout"`
	Events []api.TimelineEvent `json:"events" doc:"The order's timeline, oldest first."`
}

type disputePayout struct {
	Status *string    `json:"status" enum:"pending,frozen,released,void" doc:"Null before delivery."`
	Amount int64      `json:"amount" doc:"What the seller is (or was) paid, cents; 0 before delivery."`
	DueAt  *time.Time `json:"dueAt" doc:"When the hold period ends."`
}

func (a *API) toDisputeDetail(v *orders.DisputeDetail, viewer market.Actor) disputeDetail {
	o := v.Order
	return disputeDetail{Dispute: *api.DisputeOf(v.Dispute, a.Photos), Order: *api.OrderOf(o, viewer),
		Payout: disputePayout{Status: strOrNil(string(o.PayoutStatus)), Amount: o.PayoutAmount, DueAt: o.PayoutDueAt},
		Events: api.TimelineOf(v.Events)}
}

func (a *API) adminDispute(w http.ResponseWriter, r *http.Request) error {
	p := actor(r)
	v, err := a.Orders.AdminDispute(r.Context(), p.Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.toDisputeDetail(v, p.Actor))
}

type resolveBody struct {
	Resolution string `json:"resolution" ref:"DisputeResolution" required:"true"`
	Amount     *int64 `json:"amount" minimum:"1" doc:"'partial_refund' only (and required there): cents refunded to the buyer."`
	Note       string `json:"note" maxLength:"1000" doc:"The admin's note, kept on the dispute as 'resolutionNote'."`
}

// resolveDispute is POST /admin/disputes/{id}/resolve: the money moves as
// the resolution says; the answer is the detail view.
func (a *API) resolveDispute(w http.ResponseWriter, r *http.Request) error {
	var b resolveBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	id := httpapi.PathEntity(r, "dispute")
	p := actor(r)
	v, err := a.Orders.ResolveDispute(r.Context(), p.Actor, id, orders.DisputeDecision{Resolution: b.Resolution,
		Amount: b.Amount, Note: b.Note})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.toDisputeDetail(v, p.Actor))
}
