internal import FoundationEssentials
internal import JWSInspectCore

/// `--format json|jsonl`: one object per JWS with stable keys.
///
/// Keys, in order: source, type, status, reason, verified, xcode, summary, checkTime,
/// validNow, checks, notes, header, chain, payload, display, unknownFields,
/// unknownValues, nested. `header` and `payload` are the decoded segments exactly as
/// signed (only whitespace between tokens is re-indented); `display` mirrors the
/// payload with rendered values; `nested` maps field paths to full results.
enum JSONRenderer {
    static func render(_ inspection: Inspection, pretty: Bool) -> String {
        object(inspection).serialized(pretty: pretty)
    }

    static func object(_ inspection: Inspection) -> OutputJSON {
        var members: [(String, OutputJSON)] = [
            ("source", .string(inspection.source)),
            ("type", .string(inspection.kind.rawValue)),
            ("status", .string(inspection.status.rawValue)),
            ("reason", .string(inspection.reason)),
            ("verified", .bool(inspection.status == .valid)),
            ("xcode", .bool(inspection.isXcode)),
            ("summary", inspection.summary.map { .string($0) } ?? .null),
        ]
        members.append(("checkTime", inspection.checkTime.map { time in
            .object([("time", .string(ISO8601.string(time.date))), ("basis", .string(time.basis))])
        } ?? .null))
        members.append(("validNow", inspection.validNow.map { now in
            .object([("time", .string(ISO8601.string(now.date))), ("valid", .bool(now.valid)), ("detail", .string(now.detail))])
        } ?? .null))
        members.append(("checks", .array(inspection.checks.map { check in
            .object([("name", .string(check.name.rawValue)), ("passed", .bool(check.passed)), ("detail", .string(check.detail))])
        })))
        members.append(("notes", .array(inspection.notes.map { .string($0) })))
        members.append(("header", inspection.jws.map { .raw($0.header.bytes) } ?? .null))
        members.append(("chain", .array(inspection.chain.map(certificate))))
        members.append(("payload", inspection.jws.map { .raw($0.payload.bytes) } ?? .null))
        let shown = inspection.display
        members.append(("display", shown.map(display) ?? .null))
        members.append(("unknownFields", .array((shown?.unknownFields ?? []).map { .string($0) })))
        members.append(("unknownValues", .array((shown?.unknownValues ?? []).map { .string($0) })))
        members.append(("nested", .object(inspection.nested.map { ($0.path, object($0.inspection)) })))
        return .object(members)
    }

    /// The payload's shape with rendered values: dates in ISO-8601, enums with meanings, prices with currency.
    private static func display(_ display: PayloadDisplay) -> OutputJSON {
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
        func json(_ node: Node) -> OutputJSON {
            if node.keys.isEmpty { return .string(node.value ?? "") }
            return .object(node.keys.map { ($0, json(node.children[$0]!)) })
        }
        return display.fields.isEmpty ? .object([]) : json(root)
    }

    private static func certificate(_ summary: CertificateSummary) -> OutputJSON {
        var members: [(String, OutputJSON)] = [("index", .integer(summary.index)), ("role", .string(summary.role))]
        if let error = summary.error {
            members.append(("error", .string(error)))
            return .object(members)
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
        return .object(members)
    }
}
