internal import JWSInspectCore

/// `--summary`: results counted by status, on standard error (one JSON object there in JSON
/// modes, so that every line of standard output is a result), the same for inspect and fetch.
enum ResultCounts {
    /// Writes the counts, statuses in `order`, those never seen left out.
    static func report(_ counts: [String: Int], order: [String], table: Bool, io: CommandIO) {
        let total = counts.values.reduce(0, +)
        let ordered = order.compactMap { status in counts[status].map { (status, $0) } }
        if table {
            let parts = ordered.map { "\($0.1) \($0.0)" }
            io.error(
                "summary: \(total) result\(total == 1 ? "" : "s")"
                    + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        } else {
            let object = OrderedJSON.object([
                (
                    "summary",
                    .object(
                        .init(
                            distinct: [("total", .integer(Int64(total)))]
                                + ordered.map { ($0.0, .integer(Int64($0.1))) }))
                )
            ])
            io.writeError(object.serialized(pretty: false) + "\n")
        }
    }
}
