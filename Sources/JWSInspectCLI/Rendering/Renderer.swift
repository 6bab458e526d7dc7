internal import JWSInspectCore

/// A run's rendering: each inspection's outcome (its status, what its renderer writes to
/// standard output, and the one-line error a malformed input gets on standard error); what
/// the output looks like is the `ResultRenderer`'s alone.
struct Renderer: Sendable {
    let output: any ResultRenderer

    /// One item's outcome, rendered on the worker that verified it (`BatchEngine.run` makes it
    /// there and hands it back in input order).
    struct Outcome: Sendable {
        let status: Status
        /// What goes to stdout (nil with --quiet, or for a malformed item in table mode).
        let output: RenderedResult?
        /// A one-line error for stderr (malformed items).
        let error: String?
    }

    init(_ output: any ResultRenderer) {
        self.output = output
    }

    /// One inspection's outcome: its status, what goes to standard output, and for a
    /// malformed input the line for standard error.
    func outcome(_ inspection: Inspection) -> Outcome {
        let error = inspection.status == .malformed ? "\(inspection.source): malformed: \(inspection.reason)" : nil
        return .init(status: inspection.status, output: output.rendered(inspection), error: error)
    }

    /// The `status` of an input that could not be read (beside the verification statuses).
    static let unreadableStatus = "unreadable"
}
