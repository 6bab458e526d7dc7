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
        String(decoding: bytes(inspection, pretty: pretty, fragments: fragments), as: UTF8.self)
    }

    /// `render`'s text as UTF-8, never made a String (what standard output gets).
    static func bytes(_ inspection: Inspection, pretty: Bool, fragments: ChainFragments) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(8192)
        object(inspection, pretty: pretty, level: 0, fragments: fragments).write(into: &out, pretty: pretty)
        return out
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
        // `collect` lists the fields depth first: a node's fields are consecutive, its own text
        // (a container flagged as unknown) before its children, which replace that text.
        let fields = display.fields
        guard !fields.isEmpty else { return .object([]) }
        func node(_ range: Range<Int>, depth: Int) -> OrderedJSON {
            var members: OrderedJSON.Members = []
            var text: String?
            var index = range.lowerBound
            while index < range.upperBound {
                let path = fields[index].path
                guard path.count > depth else {
                    text = fields[index].rendered ?? fields[index].raw
                    index += 1
                    continue
                }
                let key = path[depth]
                var end = index + 1
                while end < range.upperBound, fields[end].path.count > depth, fields[end].path[depth] == key {
                    end += 1
                }
                members.append((key, node(index..<end, depth: depth + 1)))
                index = end
            }
            return members.isEmpty ? .string(text ?? "") : .object(.init(distinct: members))
        }
        return node(0..<fields.count, depth: 0)
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
