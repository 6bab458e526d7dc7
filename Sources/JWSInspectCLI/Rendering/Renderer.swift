internal import JWSInspectCore

/// Turns each inspection into what the chosen output shows: a table, a JSON object, or
/// nothing (`--quiet`), with the one-line error a malformed input gets on standard error.
struct Renderer: Sendable {
    let format: InspectOptions.Format
    let quiet: Bool
    /// `--brief`: per item only the verdict line and the summary line (tables only).
    let brief: Bool
    private let table: TableRenderer
    /// The run's serialized header and chain fragments, shared by every token of one chain.
    private let fragments = ChainFragments()

    /// One item's outcome, rendered on the worker that verified it (`BatchEngine.run` makes it
    /// there and hands it back in input order).
    struct Outcome: Sendable {
        let status: Status
        /// What goes to stdout (nil with --quiet, or for a malformed item in table mode).
        let output: String?
        /// A one-line error for stderr (malformed items).
        let error: String?
    }

    init(format: InspectOptions.Format, quiet: Bool, color: Bool, brief: Bool = false) {
        self.format = format
        self.quiet = quiet
        self.brief = brief
        self.table = TableRenderer(color: color)
    }

    /// Whether results are separated by a blank line (full tables; brief lines run on).
    var separatesResults: Bool { format == .table && !brief }

    /// One inspection's outcome: its status, what goes to standard output, and for a
    /// malformed input the line for standard error.
    func outcome(_ inspection: Inspection) -> Outcome {
        let error = inspection.status == .malformed ? "\(inspection.source): malformed: \(inspection.reason)" : nil
        guard !quiet else { return .init(status: inspection.status, output: nil, error: error) }
        let output: String?
        switch format {
        case .table where brief: output = inspection.status == .malformed ? nil : table.brief(inspection)
        case .table: output = inspection.status == .malformed ? nil : table.render(inspection)
        case .json: output = JSONRenderer.render(inspection, pretty: true, fragments: fragments) + "\n"
        case .jsonl: output = JSONRenderer.render(inspection, pretty: false, fragments: fragments) + "\n"
        }
        return .init(status: inspection.status, output: output, error: error)
    }

    /// The record an unreadable input gets in its place in JSON modes (so that every input has
    /// its result there); nil in table mode and with `--quiet`, where standard error says it.
    func unreadable(source: String, reason: String) -> String? {
        guard !quiet, format != .table else { return nil }
        let object = JSONRecord.record(
            source: source, type: PayloadKind.unknown.rawValue, status: Self.unreadableStatus, reason: reason,
            summary: nil)
        return object.serialized(pretty: format == .json) + "\n"
    }

    /// The `status` of an input that could not be read (beside the verification statuses).
    static let unreadableStatus = "unreadable"
}
