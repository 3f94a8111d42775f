package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// RegisterDisputes adds the dispute routes: the buyer opens, the seller
// responds, an admin resolves.
func (a *API) RegisterDisputes(rt *httpapi.Router) {
	p := Prefix
	rt.Handle("POST", p+"/disputes", httpapi.Bearer, a.openDispute)
	rt.Handle("GET", p+"/disputes/my", httpapi.Bearer, a.myDisputes)
	rt.Handle("GET", p+"/disputes/{id}", httpapi.Bearer, a.getDispute)
	rt.Handle("POST", p+"/disputes/{id}/respond", httpapi.Bearer, a.respondDispute)
	rt.Handle("GET", p+"/admin/disputes", httpapi.Admin, a.adminDisputes)
	rt.Handle("GET", p+"/admin/disputes/{id}", httpapi.Admin, a.adminDispute)
	rt.Handle("POST", p+"/admin/disputes/{id}/resolve", httpapi.Admin, a.resolveDispute)
}

// dispute is Variant A's dispute; evidence photos are photo URLs.
type dispute struct {
	ID                   string     `json:"id"`
	OrderID              string     `json:"orderId"`
	BuyerID              string     `json:"buyerId"`
	SellerID             string     `json:"sellerId"`
	Status               string     `json:"status" ref:"DisputeStatus"`
	Reason               string     `json:"reason" ref:"DisputeReason"`
	Description          string     `json:"description"`
	EvidencePhotos       []string   `json:"evidencePhotos" doc:"The buyer's photo URLs."`
	SellerResponse       *string    `json:"sellerResponse"`
	SellerEvidencePhotos []string   `json:"sellerEvidencePhotos" doc:"The seller's photo URLs."`
	RespondedAt          *time.Time `json:"respondedAt"`
	Resolution           *string    `json:"resolution" ref:"DisputeResolution"`
	ResolutionAmount     *int64     `json:"resolutionAmount" minimum:"0" doc:"Cents refunded by the resolution (0 for 'release_seller'); null until resolved."`
	ResolutionNote       *string    `json:"resolutionNote"`
	ResolvedBy           *string    `json:"resolvedBy" doc:"The admin's user id."`
	ResolvedAt           *time.Time `json:"resolvedAt"`
	CreatedAt            time.Time  `json:"createdAt"`
	UpdatedAt            time.Time  `json:"updatedAt"`
}

func (a *API) toDispute(d *orders.Dispute) dispute {
	return dispute{ID: d.ID, OrderID: d.OrderID, BuyerID: d.BuyerID, SellerID: d.SellerID, Status: string(d.Status),
		Reason: d.Reason, Description: d.Description, EvidencePhotos: a.photoURLs(d.PhotoIDs),
		SellerResponse: strOrNil(d.SellerResponse), SellerEvidencePhotos: a.photoURLs(d.SellerPhotoIDs),
		RespondedAt: d.RespondedAt, Resolution: strOrNil(string(d.Resolution)), ResolutionAmount: d.ResolutionAmount,
		ResolutionNote: strOrNil(d.ResolutionNote), ResolvedBy: strOrNil(d.ResolvedBy), ResolvedAt: d.ResolvedAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func (a *API) photoURLs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = a.Photos.PhotoURL(id)
	}
	return out
}

// photoIDs maps evidence photo URLs to upload ids; a URL this service did
// not issue maps to "", which the service reports by position.
func (a *API) photoIDs(urls []string) []string {
	ids := make([]string, len(urls))
	for i, u := range urls {
		ids[i], _ = a.Photos.PhotoID(u)
	}
	return ids
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
	d, err := a.Orders.OpenDispute(r.Context(), actor(r).Actor, orders.DisputeInput{OrderID: b.OrderID, Reason: b.Reason,
		Description: b.Description, PhotoIDs: a.photoIDs(b.EvidencePhotos)})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "dispute", d.ID)
	return httpapi.OK(w, r, http.StatusCreated, a.toDispute(d))
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
	id := r.PathValue("id")
	httpapi.Entity(r, "dispute", id)
	d, err := a.Orders.RespondDispute(r.Context(), actor(r).Actor, id, orders.DisputeReply{Response: b.Response,
		PhotoIDs: a.photoIDs(b.EvidencePhotos)})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.toDispute(d))
}

func (a *API) getDispute(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Orders.Dispute(r.Context(), actor(r).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.toDispute(d))
}

// myDisputes is GET /disputes/my?role=&status=&limit=&offset=.
func (a *API) myDisputes(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ds, total, err := a.Orders.MyDisputes(r.Context(), actor(r).Actor, q.Get("role"), q.Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return a.writeDisputes(w, r, ds, total, limit, offset)
}

func (a *API) adminDisputes(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	ds, total, err := a.Orders.AdminDisputes(r.Context(), actor(r).Actor, r.URL.Query().Get("status"), limit, offset)
	if err != nil {
		return err
	}
	return a.writeDisputes(w, r, ds, total, limit, offset)
}

func (a *API) writeDisputes(w http.ResponseWriter, r *http.Request, ds []orders.Dispute, total, limit, offset int) error {
	out := make([]dispute, len(ds))
	for i := range ds {
		out[i] = a.toDispute(&ds[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.PageMeta(total, limit, offset))
}

// disputeDetail is the admin's view: the dispute with its order, where the
// seller's money stands, and the order's timeline.
type disputeDetail struct {
	dispute
	Order  order           `json:"order"`
	Payout disputePayout   `json:"payout"`
	Events []timelineEvent `json:"events" doc:"The order's timeline, oldest first."`
}

type disputePayout struct {
	Status *string    `json:"status" enum:"pending,frozen,released,void" doc:"Null before delivery."`
	Amount int64      `json:"amount" doc:"What the seller is (or was) paid, cents; 0 before delivery."`
	DueAt  *time.Time `json:"dueAt" doc:"When the hold period ends."`
}

func (a *API) toDisputeDetail(v *orders.DisputeDetail, viewer market.Actor) disputeDetail {
	o := v.Order
	return disputeDetail{dispute: a.toDispute(v.Dispute), Order: toOrder(o, viewer),
		Payout: disputePayout{Status: strOrNil(string(o.PayoutStatus)), Amount: o.PayoutAmount, DueAt: o.PayoutDueAt},
		Events: toTimeline(v.Events)}
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
	id := r.PathValue("id")
	httpapi.Entity(r, "dispute", id)
	p := actor(r)
	v, err := a.Orders.ResolveDispute(r.Context(), p.Actor, id, orders.DisputeDecision{Resolution: b.Resolution,
		Amount: b.Amount, Note: b.Note})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, a.toDisputeDetail(v, p.Actor))
}
