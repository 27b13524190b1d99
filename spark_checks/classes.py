"""The anomaly classes of docs/spark-checks.md, in the order reports list them."""

LOST = "lost"
DUPLICATE = "duplicate"
UNEXPECTED = "unexpected"
RECOVERED = "recovered"
NONMONOTONIC = "nonmonotonic"
REDELIVERED_AFTER_ACK = "redelivered_after_ack"

CLASSES = (LOST, DUPLICATE, UNEXPECTED, RECOVERED, NONMONOTONIC, REDELIVERED_AFTER_ACK)

# At most this many examples per class, worst first (Jepsen truncates for the same reason:
# a report must stay readable when a run goes badly wrong).
MAX_EXAMPLES = 5
