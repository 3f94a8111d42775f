package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// AutoLabelArgs buys the platform label of a paid order whose seller has
// automatic labels on, as the system: the order ships on it like on one the
// seller bought (POST /orders/{id}/shipping/label).
type AutoLabelArgs struct {
	OrderID string `json:"order_id"`
}

// Kind names the job.
func (AutoLabelArgs) Kind() string { return "auto_label" }

// autoLabelAttempts bounds the retries of a label the carriers or the
// object store could not give: after them the seller buys it by hand.
const autoLabelAttempts = 5

// ScheduleAutoLabel enqueues the automatic label of order orderID inside
// tx, the transaction that settles its payment: the job exists exactly when
// the order is paid.
func (q *Queue) ScheduleAutoLabel(ctx context.Context, tx orders.Tx, orderID string) error {
	sqlTx, ok := tx.(interface{ SQLTx() *sql.Tx })
	if !ok || sqlTx.SQLTx() == nil {
		return market.Internal(fmt.Errorf("the label of %s must be scheduled inside a transaction", orderID))
	}
	_, err := q.Client.InsertTx(ctx, sqlTx.SQLTx(), AutoLabelArgs{OrderID: orderID}, &river.InsertOpts{MaxAttempts: autoLabelAttempts})
	if err != nil {
		return market.Internal(fmt.Errorf("enqueue the label of %s: %w", orderID, err))
	}
	return nil
}

type autoLabelWorker struct {
	river.WorkerDefaults[AutoLabelArgs]
	orders *orders.Service
	log    *slog.Logger
}

// Work buys the label. An order that cannot have one any more (shipped by
// hand, cancelled, refunded) or whose seller must act first (no ship-from
// address) is left to the seller; what may pass (a carrier or the store
// unavailable) is retried.
func (w *autoLabelWorker) Work(ctx context.Context, job *river.Job[AutoLabelArgs]) error {
	_, l, err := w.orders.BuyLabel(ctx, market.System, job.Args.OrderID, orders.LabelRequest{})
	switch market.CodeOf(err) {
	case "":
		if l.Bought {
			w.log.Info("bought the automatic label", "order", job.Args.OrderID, "carrier", l.Carrier, "service", l.Service)
		}
		return nil
	case market.CodeValidation, market.CodeInvalidState, market.CodeNotFound, market.CodeForbidden:
		w.log.Warn("automatic label not bought; left to the seller", "order", job.Args.OrderID, "err", err)
		return nil
	}
	return err
}
