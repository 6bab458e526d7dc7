internal import FoundationEssentials
internal import JWSInspectCore

/// The default, human-readable report: a verdict line first, then CHECKS, HEADER,
/// CHAIN and PAYLOAD tables.
struct TableRenderer {
    /// Whether to use ANSI colours (a terminal, and NO_COLOR not set).
    let color: Bool

    func render(_ inspection: Inspection) -> String {
        renderLines(inspection).joined(separator: "\n") + "\n"
    }

    private func renderLines(_ inspection: Inspection) -> [String] {
        var lines: [String] = []
        lines.append(verdict(inspection))
        lines.append("  " + TerminalText.safe(inspection.reason))
        if inspection.isXcode {
            lines.append("  " + paint("StoreKit Testing in Xcode token: NOT signed by the App Store; it proves nothing about payment", .yellow))
        }
        let (shown, summary) = inspection.presentation
        if let summary {
            lines.append("  " + TerminalText.safe(summary))
        }
        if let now = inspection.validNow, inspection.status == .valid || inspection.status == .unverified {
            lines.append(now.valid ? "  " + TerminalText.safe(now.detail)
                         : "  " + paint("note: NOT valid now", .yellow) + " — " + TerminalText.safe(now.detail)
                           + "; the verdict follows the signing time (use --at now to require current validity)")
        }
        guard let jws = inspection.jws else { return lines }

        if !inspection.checks.isEmpty || !inspection.notes.isEmpty {
            lines.append("")
            lines.append(heading("CHECKS"))
            let width = inspection.checks.map(\.name.rawValue.count).max() ?? 0
            for check in inspection.checks {
                let mark = check.passed ? paint("ok  ", .green) : paint("FAIL", .red)
                lines.append("  \(mark)  \(pad(check.name.rawValue, width))  \(TerminalText.safe(check.detail))")
            }
            for note in inspection.notes {
                lines.append("  \(paint("note", .yellow))  \(TerminalText.safe(note))")
            }
        }

        lines.append("")
        lines.append(heading("HEADER"))
        lines += table(headerRows(jws.header.object, now: inspection.now))

        if !inspection.chain.isEmpty {
            lines.append("")
            lines.append(heading("CHAIN"))
            for summary in inspection.chain {
                lines += chainRows(summary, inspection: inspection)
            }
        }

        lines.append("")
        lines.append(heading("PAYLOAD") + "  (\(inspection.kind.displayName))")
        lines += table(payloadRows(shown))

        for nested in inspection.nested {
            lines.append("")
            lines.append(heading("NESTED \(nested.path)"))
            lines += renderLines(nested.inspection).map { $0.isEmpty ? $0 : "    " + $0 }
        }
        return lines
    }

    // MARK: Sections

    private func verdict(_ inspection: Inspection) -> String {
        let word: String
        switch inspection.status {
        case .valid: word = paint("VALID", .green)
        case .unverified: word = paint("UNVERIFIED — NOTHING WAS CHECKED (--no-verify)", .yellow)
        default: word = paint("INVALID (\(inspection.status.rawValue))", .red)
        }
        let kind = inspection.status == .malformed ? "" : "  \(inspection.kind.displayName)"
        return "\(word)\(kind)  \(TerminalText.safe(inspection.source))"
    }

    private func headerRows(_ header: [String: JSONValue], now: Date) -> [(String, String)] {
        let order = ["alg", "kid", "typ", "x5c"]
        let keys = order.filter { header[$0] != nil } + header.keys.filter { !order.contains($0) }.sorted()
        return keys.map { key in
            if key == "x5c", case .array(let entries) = header[key]! {
                return (key, "\(entries.count) certificate\(entries.count == 1 ? "" : "s") (see CHAIN)")
            }
            return (key, PayloadDisplay.text(key, header[key]!, in: header, now: now))
        }
    }

    private func chainRows(_ summary: CertificateSummary, inspection: Inspection) -> [String] {
        let lines = ["  [\(summary.index)] \(summary.role)"]
        if let error = summary.error {
            return lines + table([("error", error)], indent: 6)
        }
        var rows: [(String, String)] = [
            ("subject", summary.subject),
            ("issuer", summary.issuer),
            ("serial", summary.serialHex),
        ]
        var validity = "\(ISO8601.string(summary.notBefore)) .. \(ISO8601.string(summary.notAfter))"
        if let time = inspection.checkTime {
            validity += summary.isWithinValidity(at: time.date) ? "  (valid at \(time.basis))" : "  (NOT valid at \(time.basis))"
        }
        if let now = inspection.validNow, !summary.isWithinValidity(at: now.date) {
            validity += "  (not valid now)"
        }
        rows.append(("validity", validity))
        rows.append(("sha256", summary.sha256))
        rows.append(("key", summary.key))
        let oids = summary.appleOIDs.map { oid in
            AppleCertificates.oidNames[oid].map { "\(oid) (\($0))" } ?? oid
        }
        rows.append(("Apple OIDs", oids.isEmpty ? "none" : oids.joined(separator: "; ")))
        var known = summary.knownAs ?? "no (not a certificate jwsinspect recognises)"
        if summary.isTrustedRoot { known += summary.knownAs == nil ? "; equals a trusted root" : " (a trusted root)" }
        rows.append(("known Apple", known))
        return lines + table(rows, indent: 6)
    }

    /// Payload fields: raw value, its rendering, how long ago, and what this version does not know.
    private func payloadRows(_ display: PayloadDisplay?) -> [(String, String)] {
        guard let display else { return [] }
        return display.fields.map { field in
            var text = field.raw
            if let rendered = field.rendered {
                // Long raw values (nested JWS) are summarised by their rendering alone.
                text = rendered.hasPrefix(field.raw) || field.raw.count > 120 ? rendered : "\(field.raw)  \(rendered)"
            }
            if let relative = field.relative { text += "  (\(relative))" }
            if let flag = field.flag { text += "  [\(flag)]" }
            return (field.dottedPath, text)
        }
    }

    // MARK: Layout

    /// Two aligned columns; both are made safe for the terminal (they come from the token).
    private func table(_ rows: [(String, String)], indent: Int = 2) -> [String] {
        let safeRows = rows.map { (TerminalText.safe($0.0), TerminalText.safe($0.1)) }
        let width = safeRows.map(\.0.count).max() ?? 0
        let space = String(repeating: " ", count: indent)
        return safeRows.map { "\(space)\(pad($0.0, width))  \($0.1)" }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func heading(_ text: String) -> String { paint(text, .bold) }

    enum Style: String {
        case red = "31;1", green = "32;1", yellow = "33;1", bold = "1"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1b}[\(style.rawValue)m\(text)\u{1b}[0m" : text
    }
}
