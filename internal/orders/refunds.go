package orders

// RefundTx is what refunds need from a transaction.
type RefundTx interface{}
