internal import FoundationEssentials
internal import JWSInspectCore

/// `--format json|jsonl`: one object per JWS with stable keys.
///
/// Keys, in order: schemaVersion, record (`result`), source, type, envelope, status, reason,
/// verified, authentic, xcode, summary, access, checkTime, validNow, checks, notes, header,
/// chain, payload, display, unknownFields, unknownValues, nested. `header` and `payload` are the decoded segments exactly as
/// signed (only whitespace between tokens is re-indented); `display` mirrors the
/// payload with rendered values; `nested` maps field paths to full results.
enum JSONRenderer {
    /// - Parameter fragments: the run's serialized header and chain fragments (shared by
    ///   every token of one chain).
    static func render(_ inspection: Inspection, pretty: Bool, fragments: ChainFragments) -> String {
        String(decoding: bytes(inspection, pretty: pretty, fragments: fragments), as: UTF8.self)
    }

    /// `render`'s text as UTF-8, never made a String (what standard output gets).
    static func bytes(_ inspection: Inspection, pretty: Bool, fragments: ChainFragments, newline: Bool = false)
        -> [UInt8]
    {
        var stream = JSONStream(pretty: pretty, capacity: 8192)
        write(inspection, into: &stream, fragments: fragments)
        if newline { stream.newlineAfterRecord() }
        return stream.bytes
    }

    /// Writes the result's object where `stream` is (a whole record, or a nested result's
    /// value), member by member: nothing of it is built as a value first.
    ///
    /// - Parameter fragments: the run's serialized header and chain fragments (shared by every
    ///   token of one chain), made for the depth they are written at.
    static func write(_ inspection: Inspection, into stream: inout JSONStream, fragments cache: ChainFragments) {
        let presentation = inspection.summaryAndAccess(.utc)
        stream.openObject()
        stream.key("schemaVersion")
        stream.integer(RecordType.schemaVersion)
        stream.key("record")
        stream.plain(RecordType.result.rawValue)
        stream.key("source")
        stream.string(inspection.source)
        stream.key("type")
        stream.plain(inspection.kind.rawValue)
        stream.key("envelope")
        stream.string(inspection.envelope?.name)
        stream.key("status")
        stream.plain(inspection.status.rawValue)
        stream.key("reason")
        stream.string(inspection.reason)
        stream.key("verified")
        stream.bool(inspection.status == .valid)
        stream.key("authentic")
        stream.bool(inspection.isAuthentic)
        stream.key("xcode")
        stream.bool(inspection.isXcode)
        stream.key("summary")
        stream.string(presentation?.summary)
        stream.key("access")
        if let presentation {
            AccessJSON.write(presentation.access.access, time: presentation.access.time, into: &stream)
        } else {
            stream.null()
        }
        stream.key("checkTime")
        if let time = inspection.checkTime {
            stream.openObject()
            stream.key("time")
            stream.date(time.date)
            stream.key("basis")
            stream.string(time.basis.description)
            stream.closeObject()
        } else {
            stream.null()
        }
        stream.key("validNow")
        if let now = inspection.validNow {
            stream.openObject()
            stream.key("time")
            stream.date(now.date)
            stream.key("valid")
            stream.bool(now.valid)
            stream.key("detail")
            stream.string(now.detail)
            stream.closeObject()
        } else {
            stream.null()
        }
        stream.key("checks")
        stream.openArray()
        for check in inspection.checks {
            stream.element()
            stream.openObject()
            stream.key("name")
            stream.plain(check.name.rawValue)
            stream.key("passed")
            stream.bool(check.passed)
            stream.key("detail")
            stream.string(check.detail)
            stream.closeObject()
        }
        stream.closeArray()
        stream.key("notes")
        strings(inspection.notes, into: &stream)
        if let sections = inspection.envelope?.sections {
            let fragments = cache.fragments(header: sections.header.bytes, pretty: stream.pretty, level: stream.level) {
                (OrderedJSON.raw(sections.header.bytes), OrderedJSON.array(inspection.chain.map(certificate)))
            }
            stream.key("header")
            stream.preformatted(fragments.header)
            stream.key("chain")
            stream.preformatted(fragments.chain)
            stream.key("payload")
            stream.raw(sections.payload.bytes, isCompact: sections.payload.isCompact)
        } else {
            stream.key("header")
            stream.null()
            stream.key("chain")
            stream.value(.array(inspection.chain.map(certificate)))
            stream.key("payload")
            stream.null()
        }
        stream.key("display")
        var unknown: (unknownFields: [String], unknownValues: [String]) = ([], [])
        if let envelope = inspection.envelope {
            unknown = PayloadDisplay.write(
                kind: inspection.kind, payload: envelope.sections.payload.object, now: inspection.now, into: &stream)
        } else {
            stream.null()
        }
        stream.key("unknownFields")
        strings(unknown.unknownFields, into: &stream)
        stream.key("unknownValues")
        strings(unknown.unknownValues, into: &stream)
        stream.key("nested")
        stream.openObject()
        for item in inspection.nested {
            stream.key(data: item.path)
            write(item.inspection, into: &stream, fragments: cache)
        }
        stream.closeObject()
        stream.closeObject()
    }

    /// An array of strings.
    private static func strings(_ texts: [String], into stream: inout JSONStream) {
        stream.openArray()
        for text in texts {
            stream.element()
            stream.string(text)
        }
        stream.closeArray()
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
