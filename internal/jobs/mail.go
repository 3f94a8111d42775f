package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"marketplace/internal/market"
	"marketplace/internal/notify"
)

// MailAttempts is how many times a mail is tried before it is marked
// failed; River spaces the retries out (attempt^4 seconds, jittered: about
// a day in all).
const MailAttempts = 12

// SendMailArgs sends one mail of the outbox through SMTP.
type SendMailArgs struct {
	MailID string `json:"mail_id"`
}

// Kind names the job.
func (SendMailArgs) Kind() string { return "send_mail" }

// EnqueueMail schedules a mail's sending in the transaction that queues it
// (notify.Enqueuer): the job exists exactly when the mail does.
func (q *Queue) EnqueueMail(ctx context.Context, tx notify.Tx, mailID string) error {
	if tx.SQLTx() == nil {
		return market.Internal(fmt.Errorf("a mail must be queued inside a transaction"))
	}
	_, err := q.Client.InsertTx(ctx, tx.SQLTx(), SendMailArgs{MailID: mailID}, &river.InsertOpts{MaxAttempts: MailAttempts})
	if err != nil {
		return market.Internal(fmt.Errorf("enqueue mail: %w", err))
	}
	return nil
}

var _ notify.Enqueuer = (*Queue)(nil)

type sendMailWorker struct {
	river.WorkerDefaults[SendMailArgs]
	mail *notify.Service
}

func (w *sendMailWorker) Work(ctx context.Context, job *river.Job[SendMailArgs]) error {
	if w.mail == nil {
		return nil
	}
	return w.mail.Deliver(ctx, job.Args.MailID, job.Attempt >= job.MaxAttempts)
}
