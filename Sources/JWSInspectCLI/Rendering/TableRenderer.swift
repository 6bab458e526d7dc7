internal import FoundationEssentials
internal import JWSInspectCore

/// The default, human-readable report: a verdict line first, then CHECKS, HEADER,
/// CHAIN and PAYLOAD tables.
struct TableRenderer {
    /// Whether to use ANSI colours (a terminal, and NO_COLOR not set).
    let color: Bool
    /// How dates read (`--time-zone`; UTC by default).
    var style = DateStyle.utc

    /// Lines past which a view is longer than a screen: its verdict is repeated at its end.
    static let screen = 40

    func render(_ inspection: Inspection) -> String {
        var lines = renderLines(inspection, above: [])
        if lines.count > Self.screen, let first = lines.first {
            // The verdict stays visible in a long view: where the reader's eye ends up.
            lines += ["", heading("VERDICT") + "  " + first]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `--brief`, for a support desk: the verdict line, the failed check's reason when one
    /// failed (which field, what was expected), and the summary line.
    func brief(_ inspection: Inspection) -> String {
        let presentation = inspection.presentation(style)
        var lines = [verdict(inspection, access: presentation?.access)]
        if inspection.status != .valid { lines.append("  " + TerminalText.safe(inspection.reason)) }
        if let summary = presentation?.summary { lines.append("  " + TerminalText.safe(summary)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// - Parameter above: the fingerprints of the chain printed above (a notification's, for
    ///   its nested tokens): the same chain is named, not printed again.
    private func renderLines(_ inspection: Inspection, above: [String]) -> [String] {
        var lines: [String] = []
        let presentation = inspection.presentation(style)
        lines.append(verdict(inspection, access: presentation?.access))
        lines.append("  " + TerminalText.safe(inspection.reason))
        if inspection.isXcode {
            let warning =
                "StoreKit Testing in Xcode \(inspection.kind == .receipt ? "receipt" : "token"): NOT signed by the App Store; "
            lines.append("  " + paint(warning + "it proves nothing about payment", .yellow))
        }
        let (shown, summary) = (presentation?.display, presentation?.summary)
        if let summary {
            lines.append("  " + TerminalText.safe(summary))
        }
        if let now = inspection.validNow, inspection.status == .valid || inspection.status == .unverified {
            if now.valid {
                lines.append("  " + TerminalText.safe(now.detail))
            } else if now.expiredSince {
                // In words a non-engineer reads right: expiring after signing is the normal case.
                let note = paint("note: signed while its certificates were valid; one has expired since", .yellow)
                lines.append(
                    "  " + note + ", which is normal: the data stays authentic (" + TerminalText.safe(now.detail)
                        + "; " + OptionHints.validityNowAdvice + ")")
            } else {
                let note = paint("note: " + Inspection.ValidityNow.warning, .yellow)
                lines.append("  " + note + " — " + TerminalText.safe(now.detail) + "; " + OptionHints.validityNowAdvice)
            }
        }
        guard let sections = inspection.envelope?.sections else { return lines }

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
        lines.append(heading(sections.headerTitle))
        let headerRows = headerRows(sections.header.object, order: sections.headerOrder, now: inspection.now)
        // A transaction receipt may hold nothing but its purchase-info (the PAYLOAD).
        lines += headerRows.isEmpty ? ["  (no members besides the payload)"] : table(headerRows)

        let fingerprints = inspection.chain.map(\.sha256)
        if !inspection.chain.isEmpty, fingerprints == above, inspection.chain.allSatisfy({ $0.error == nil }) {
            lines.append("")
            lines.append(heading("CHAIN") + "  the same \(fingerprints.count) certificates as above")
        } else if !inspection.chain.isEmpty {
            lines.append("")
            lines.append(heading("CHAIN"))
            for summary in inspection.chain {
                lines += chainRows(summary, inspection: inspection)
            }
        }

        lines.append("")
        lines.append(heading("PAYLOAD") + "  (\(inspection.kind.displayName))")
        lines += table(payloadRows(shown))

        if let receipt = inspection.envelope?.receipt {
            lines.append("")
            lines.append(heading("IN-APP PURCHASES") + "  (\(receipt.payload.inApp.count))")
            lines += InAppTable.lines(
                receipt.payload, at: inspection.accessTime, decides: inspection.decidesAccess, style: style)
        }

        for nested in inspection.nested {
            lines.append("")
            lines.append(heading("NESTED \(nested.path)"))
            lines += renderLines(nested.inspection, above: fingerprints).map { $0.isEmpty ? $0 : "    " + $0 }
        }
        return lines
    }

    // MARK: Sections

    /// The first line, for support staff: the status, then whether the token is authentic and
    /// whether it grants access, then where it came from. "VALID — authentic Apple-signed
    /// transaction · grants no access (expired 2025-10-02)  file.jws:1".
    func verdict(_ inspection: Inspection, access: Inspection.AccessDecision?) -> String {
        let source = TerminalText.safe(inspection.source)
        switch inspection.status {
        case .malformed:
            return "\(paint("INVALID (malformed)", .red))  \(source)"
        case .unverified:
            let word = paint("UNVERIFIED — NOTHING WAS CHECKED (--no-verify)", .yellow)
            return "\(word)  \(inspection.kind.displayName)  \(source)"
        case .unverifiable:
            // A StoreKit 1 transaction receipt: nothing here verifies it; Apple can.
            let how = inspection.envelope?.transactionReceipt?.fetchableTransactionID.map {
                ", verify it through Apple: \(OptionHints().word(.fetchTransaction(id: $0)))"
            }
            let word = paint("UNVERIFIABLE", .red)
            let parts =
                ["\(inspection.kind.displayName) " + paint("NOT verifiable here\(how ?? "")", .red)]
                + (access.map { [accessPhrase($0, failed: true)] } ?? [])
            return "\(word) — \(parts.joined(separator: " · "))  \(source)"
        default:
            break
        }
        let valid = inspection.status == .valid
        let word = valid ? paint("VALID", .green) : paint("INVALID (\(failureWord(inspection)))", .red)
        var parts = [authenticity(inspection)]
        // Sandbox is said where access is: a test purchase grants nothing a customer paid for.
        // (Said of data proven authentic only: an unverified payload's environment proves nothing.)
        if valid || inspection.status == .inactive, inspection.isAuthentic,
            let environment = testEnvironment(inspection)
        {
            parts.append(environment)
        }
        // Access is what a valid token means for the customer, and what `--require-active` failed
        // on; beside any other failure (another app, environment, a forged chain) it would mislead.
        if let access, (valid && !inspection.isXcode) || inspection.status == .inactive {
            parts.append(accessPhrase(access, failed: !valid))
        }
        return "\(word) — \(parts.joined(separator: " · "))  \(source)"
    }

    /// The status as the headline words it: what differs when the status alone would mislead a
    /// reader (`wrong-app` for another customer's account token or another device; `invalid-chain`
    /// for a developer token given without its key, which has no chain). JSON keeps the status.
    private func failureWord(_ inspection: Inspection) -> String {
        switch inspection.checks.first(where: \.failed)?.name {
        case .accountToken?: "wrong customer: another account token"
        case .deviceVerification?: "wrong device"
        case .key?: "no trusted key"
        default: inspection.status.rawValue
        }
    }

    /// "Sandbox (test environment: no money charged)" for data the App Store's sandbox signed
    /// (a receipt's ProductionSandbox included); nil in Production.
    private func testEnvironment(_ inspection: Inspection) -> String? {
        let environment: String?
        if let receipt = inspection.envelope?.receipt {
            environment = receipt.payload.receiptType
        } else if let payload = inspection.jws?.payload.object, !inspection.isXcode {
            environment = AppIdentity(kind: inspection.kind, payload: payload).environment
        } else {
            environment = nil
        }
        guard Exact.same(environment, "Sandbox") || Exact.same(environment, "ProductionSandbox") else { return nil }
        return paint("Sandbox (test environment: no money charged)", .yellow)
    }

    /// "authentic Apple-signed transaction", or why the token is not shown to be.
    private func authenticity(_ inspection: Inspection) -> String {
        let kind = inspection.kind.displayName
        if inspection.envelope?.realtimeResponse != nil {
            // Your server's answer: nothing signs it; its offer's signature is checked apart.
            let signed = !inspection.nested.isEmpty || inspection.checks.contains { $0.name == .key && $0.passed }
            return inspection.status == .valid
                ? "\(kind) as Apple's model defines it"
                    + (signed ? ", its offer signature verified" : ", nothing in it signed")
                : "\(kind) (your server's answer, not signed)"
        }
        if inspection.isXcode {
            return paint("StoreKit Testing in Xcode \(kind), NOT signed by the App Store", .yellow)
        }
        if inspection.isAppleSigned {
            return "authentic Apple-signed \(kind)"
        }
        if inspection.isMintedTestData {
            return "authentic \(kind) " + paint("minted by jwsinspect mint: test data, NOT Apple's", .yellow)
        }
        if let keyID = inspection.developerKeyID {
            return "authentic \(kind), signed with the developer key \(keyID)"
        }
        if inspection.isAuthentic {
            return "authentic \(kind) (trusted root, not a known Apple chain)"
        }
        if let path = inspection.failedNestedPath, inspection.outerIsAuthentic {
            // The notification is the App Store's; what it carries is not proven.
            return "\(kind) with its own signature verified · " + paint("its \(path) NOT proven authentic", .red)
        }
        if !inspection.checks.contains(where: { $0.name == .alg || $0.name == .signature }) {
            return "\(kind), " + paint("signature and chain NOT checked (--no-verify)", .yellow)
        }
        return "\(kind) " + paint("NOT proven authentic", .red)
    }

    /// "grants access until 2026-03-01", "transaction grants no access (expired 2025-10-02)".
    private func accessPhrase(_ decision: Inspection.AccessDecision, failed: Bool) -> String {
        let phrase = TerminalText.safe(decision.access.briefPhrase(style))
        let painted: String
        switch decision.access.grantsAccess {
        case true?: painted = paint(phrase, .green)
        case false?: painted = paint(phrase, failed ? .red : .yellow)
        case nil: painted = phrase
        }
        return decision.path == nil ? painted : "\(decision.kind.displayName) \(painted)"
    }

    private func headerRows(_ header: [String: JSONValue], order: [String], now: Date) -> [(String, String)] {
        let keys = order.filter { header[$0] != nil } + header.keys.filter { !order.contains($0) }.sorted()
        return keys.map { key in
            if key == "x5c", case .array(let entries) = header[key]! {
                return (key, "\(entries.count) entr\(entries.count == 1 ? "y" : "ies") (see CHAIN)")
            }
            return (key, PayloadDisplay.text(key, header[key]!, in: header, now: now, style: style))
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
        var validity = "\(style.stamp(summary.notBefore)) .. \(style.stamp(summary.notAfter))"
        if let time = inspection.checkTime {
            let within = summary.isWithinValidity(at: time.date)
            validity += within ? "  (valid at \(time.basis))" : "  (NOT valid at \(time.basis))"
        }
        if let mark = inspection.validNow?.mark(summary) {
            validity += "  (\(mark))"
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

    /// Two aligned columns; both are made safe for the terminal (they come from the token or an answer).
    func table(_ rows: [(String, String)], indent: Int = 2) -> [String] {
        // Each key's length in characters, counted once (counting walks grapheme clusters).
        let safeRows = rows.map { row in
            let key = TerminalText.safe(row.0)
            return (key: key, length: key.count, value: TerminalText.safe(row.1))
        }
        let width = safeRows.map(\.length).max() ?? 0
        let space = String(repeating: " ", count: indent)
        return safeRows.map { row in
            var line = space
            line.reserveCapacity(indent + row.key.utf8.count + width - row.length + 2 + row.value.utf8.count)
            line += row.key
            line += String(repeating: " ", count: width - row.length + 2)
            line += row.value
            return line
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let length = text.count
        return length >= width ? text : text + String(repeating: " ", count: width - length)
    }

    func heading(_ text: String) -> String { paint(text, .bold) }

    enum Style: String {
        case red = "31;1"
        case green = "32;1"
        case yellow = "33;1"
        case bold = "1"
    }

    func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1b}[\(style.rawValue)m\(text)\u{1b}[0m" : text
    }
}
