package api

import (
	"context"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/orders"
)

// Dispute is a buyer's dispute of an order; evidence photos are photo
// URLs.
type Dispute struct {
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

// DisputeOf is d with its evidence photos as the URLs photos serves them
// at.
func DisputeOf(d *orders.Dispute, photos *listings.Photos) *Dispute {
	urls := func(ids []string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = photos.PhotoURL(id)
		}
		return out
	}
	return &Dispute{ID: d.ID, OrderID: d.OrderID, BuyerID: d.BuyerID, SellerID: d.SellerID, Status: string(d.Status),
		Reason: d.Reason, Description: d.Description, EvidencePhotos: urls(d.PhotoIDs),
		SellerResponse: strOrNil(d.SellerResponse), SellerEvidencePhotos: urls(d.SellerPhotoIDs),
		RespondedAt: d.RespondedAt, Resolution: strOrNil(string(d.Resolution)), ResolutionAmount: d.ResolutionAmount,
		ResolutionNote: strOrNil(d.ResolutionNote), ResolvedBy: strOrNil(d.ResolvedBy), ResolvedAt: d.ResolvedAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

// Disputes are the dispute operations: the buyer opens, the seller
// responds, an admin resolves. Photos maps evidence photo URLs to their
// uploads and back.
type Disputes struct {
	Service *orders.Service
	Photos  *listings.Photos
}

// DisputeOpening is a buyer's dispute of an order, evidence as photo URLs.
type DisputeOpening struct {
	OrderID        string
	Reason         string
	Description    string
	EvidencePhotos []string
}

// photoIDs maps evidence photo URLs to upload ids; a URL this service did
// not issue maps to "", which the service reports by position.
func (x Disputes) photoIDs(urls []string) []string {
	ids := make([]string, len(urls))
	for i, u := range urls {
		ids[i], _ = x.Photos.PhotoID(u)
	}
	return ids
}

func (x Disputes) view(d *orders.Dispute, err error) (*Dispute, error) {
	if err != nil {
		return nil, err
	}
	return DisputeOf(d, x.Photos), nil
}

// Open disputes an order: its payout is frozen until an admin resolves it.
func (x Disputes) Open(ctx context.Context, c *Caller, in DisputeOpening) (*Dispute, error) {
	return x.view(x.Service.OpenDispute(ctx, c.Actor, orders.DisputeInput{OrderID: in.OrderID, Reason: in.Reason,
		Description: in.Description, PhotoIDs: x.photoIDs(in.EvidencePhotos)}))
}

// Respond is the seller's answer, with evidence photo URLs.
func (x Disputes) Respond(ctx context.Context, c *Caller, id, response string, evidencePhotos []string) (*Dispute, error) {
	return x.view(x.Service.RespondDispute(ctx, c.Actor, id, orders.DisputeReply{Response: response,
		PhotoIDs: x.photoIDs(evidencePhotos)}))
}

// Get reads a dispute the caller is a party to (or any, for an admin).
func (x Disputes) Get(ctx context.Context, c *Caller, id string) (*Dispute, error) {
	return x.view(x.Service.Dispute(ctx, c.Actor, id))
}

// Mine is a page of the caller's disputes as buyer or seller ("" both),
// and how many there are in all.
func (x Disputes) Mine(ctx context.Context, c *Caller, role, status string, limit, offset int) ([]Dispute, int, error) {
	return x.list(x.Service.MyDisputes(ctx, c.Actor, role, status, limit, offset))
}

// All is a page of every dispute (admins), and how many there are.
func (x Disputes) All(ctx context.Context, c *Caller, status string, limit, offset int) ([]Dispute, int, error) {
	return x.list(x.Service.AdminDisputes(ctx, c.Actor, status, limit, offset))
}

func (x Disputes) list(ds []orders.Dispute, total int, err error) ([]Dispute, int, error) {
	if err != nil {
		return nil, 0, err
	}
	out := make([]Dispute, len(ds))
	for i := range ds {
		out[i] = *DisputeOf(&ds[i], x.Photos)
	}
	return out, total, nil
}

// DisputeOps are the dispute operations.
func (o Ops) DisputeOps() Disputes { return Disputes{Service: o.Orders, Photos: o.Photos} }
