internal import FoundationEssentials
internal import JWSInspectCore

/// `--format json|jsonl`: one object per JWS with stable keys.
///
/// Keys, in order: source, type, envelope, status, reason, verified, xcode, summary, access,
/// checkTime, validNow, checks, notes, header, chain, payload, display, unknownFields,
/// unknownValues, nested. `header` and `payload` are the decoded segments exactly as
/// signed (only whitespace between tokens is re-indented); `display` mirrors the
/// payload with rendered values; `nested` maps field paths to full results.
enum JSONRenderer {
    /// - Parameter fragments: the run's serialized header and chain fragments (shared by
    ///   every token of one chain).
    static func render(_ inspection: Inspection, pretty: Bool, fragments: ChainFragments) -> String {
        object(inspection, pretty: pretty, level: 0, fragments: fragments).serialized(pretty: pretty)
    }

    /// - Parameters:
    ///   - pretty, level: how and at what depth the object will be serialized (the header and
    ///     chain fragments, identical for every token of one chain, are serialized once).
    static func object(_ inspection: Inspection, pretty: Bool, level: Int, fragments cache: ChainFragments)
        -> OrderedJSON
    {
        let presentation = inspection.fullPresentation
        let shown = presentation?.display
        let checkTime = inspection.checkTime.map { time in
            OrderedJSON.object([
                ("time", .string(ISO8601.string(time.date))), ("basis", .string(time.basis.description)),
            ])
        }
        let validNow = inspection.validNow.map { now in
            OrderedJSON.object([
                ("time", .string(ISO8601.string(now.date))), ("valid", .bool(now.valid)),
                ("detail", .string(now.detail)),
            ])
        }
        let checks = inspection.checks.map { check in
            OrderedJSON.object([
                ("name", .string(check.name.rawValue)), ("passed", .bool(check.passed)),
                ("detail", .string(check.detail)),
            ])
        }
        var members: OrderedJSON.Members = [
            ("source", .string(inspection.source)),
            ("type", .string(inspection.kind.rawValue)),
            ("envelope", inspection.envelope.map { .string($0.name) } ?? .null),
            ("status", .string(inspection.status.rawValue)),
            ("reason", .string(inspection.reason)),
            ("verified", .bool(inspection.status == .valid)),
            ("xcode", .bool(inspection.isXcode)),
            ("summary", presentation.map { .string($0.summary) } ?? .null),
            ("access", presentation.map { access($0.access) } ?? .null),
            ("checkTime", checkTime ?? .null),
            ("validNow", validNow ?? .null),
            ("checks", .array(checks)),
        ]
        members.append(("notes", .array(inspection.notes.map { .string($0) })))
        let sections = inspection.envelope?.sections
        if let sections {
            let fragments = cache.fragments(header: sections.header.bytes, pretty: pretty, level: level + 1) {
                (OrderedJSON.raw(sections.header.bytes), OrderedJSON.array(inspection.chain.map(certificate)))
            }
            members.append(("header", .preformatted(fragments.header)))
            members.append(("chain", .preformatted(fragments.chain)))
        } else {
            members.append(("header", .null))
            members.append(("chain", .array(inspection.chain.map(certificate))))
        }
        members.append(("payload", sections.map { .raw($0.payload.bytes) } ?? .null))
        members.append(("display", shown.map(display) ?? .null))
        members.append(("unknownFields", .array((shown?.unknownFields ?? []).map { .string($0) })))
        members.append(("unknownValues", .array((shown?.unknownValues ?? []).map { .string($0) })))
        let nested = inspection.nested.map { item in
            (item.path, object(item.inspection, pretty: pretty, level: level + 2, fragments: cache))
        }
        members.append(("nested", .object(.init(distinct: nested))))
        return .object(.init(distinct: members))
    }

    /// `{grants, detail, time, decidedBy}`: whether the payload grants access at `time`, in the
    /// summary's words; `decidedBy` names the nested token that decided, for a notification.
    private static func access(_ decision: Inspection.AccessDecision) -> OrderedJSON {
        .object([
            ("grants", decision.access.grantsAccess.map { .bool($0) } ?? .null),
            ("detail", .string(decision.access.explanation)),
            ("time", .string(ISO8601.string(decision.time))),
            ("decidedBy", decision.path.map { .string($0) } ?? .null),
        ])
    }

    /// The payload's shape with rendered values: dates in ISO-8601, enums with meanings, prices with currency.
    private static func display(_ display: PayloadDisplay) -> OrderedJSON {
        final class Node {
            var keys: [String] = []
            var children: [String: Node] = [:]
            var value: String?
        }
        let root = Node()
        for field in display.fields {
            var node = root
            for key in field.path {
                if let child = node.children[key] {
                    node = child
                } else {
                    let child = Node()
                    node.children[key] = child
                    node.keys.append(key)
                    node = child
                }
            }
            // A container flagged as unknown gets children too; its own text is dropped then.
            node.value = field.rendered ?? field.raw
        }
        func json(_ node: Node) -> OrderedJSON {
            if node.keys.isEmpty { return .string(node.value ?? "") }
            return .object(.init(distinct: node.keys.map { ($0, json(node.children[$0]!)) }))
        }
        return display.fields.isEmpty ? .object([]) : json(root)
    }

    private static func certificate(_ summary: CertificateSummary) -> OrderedJSON {
        var members: OrderedJSON.Members = [("index", .integer(Int64(summary.index))), ("role", .string(summary.role))]
        if let error = summary.error {
            members.append(("error", .string(error)))
            return .object(.init(distinct: members))
        }
        members += [
            ("subject", .string(summary.subject)),
            ("issuer", .string(summary.issuer)),
            ("serial", .string(summary.serialHex)),
            ("notBefore", .string(ISO8601.string(summary.notBefore))),
            ("notAfter", .string(ISO8601.string(summary.notAfter))),
            ("sha256", .string(summary.sha256)),
            ("key", .string(summary.key)),
            ("appleOIDs", .array(summary.appleOIDs.map { .string($0) })),
            ("knownAppleCertificate", summary.knownAs.map { .string($0) } ?? .null),
            ("trustedRoot", .bool(summary.isTrustedRoot)),
        ]
        return .object(.init(distinct: members))
    }
}
