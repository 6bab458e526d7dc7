internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect verify-offer-v1`: verifies a legacy (V1, StoreKit 1) promotional offer
/// signature with the developer's key over the seven fields as Apple's
/// `PromotionalOfferSignatureCreator` joins them, and shows the exact string that was signed.
/// The exit status is the signature's (0 verified, 1 not); a timestamp the App Store would
/// refuse (more than 24 hours old) is reported as a warning, not a failure.
enum VerifyOfferV1Command {
    /// How U+2063 INVISIBLE SEPARATOR is shown in text.
    static let visibleSeparator = "⟨U+2063⟩"

    /// What was verified, for either rendering.
    struct Report {
        let offer: PromotionalOfferV1
        /// The application username as given (it is signed in lowercase).
        let givenUsername: String
        let keySummary: String
        let verified: Bool
        let now: Date

        var isOld: Bool { offer.isOlderThanLifetime(at: now) }
        var status: Status { verified ? .valid : .invalidSignature }

        var signatureDetail: String {
            verified
                ? "ECDSA P-256 SHA-256 signature (DER) over the signed string verified with the developer key "
                    + "\(offer.keyID) (\(keySummary))"
                : "does not verify with the developer key \(offer.keyID) (\(keySummary)) over the signed string: a "
                    + "field differs from what was signed (the key ID is one of them), or another key signed it"
        }

        var timestampDetail: String {
            var detail = "\(ISO8601.string(offer.date)) (\(RelativeTime.phrase(offer.date, now: now)))"
            if isOld {
                detail += ": older than 24 hours at now \(ISO8601.string(now)): the App Store refuses this signature"
            } else {
                let until = Date(timeIntervalSince1970: Double(offer.timestamp + PromotionalOfferV1.lifetime) / 1000)
                detail += ": not older than 24 hours at now; the App Store accepts it until \(ISO8601.string(until))"
            }
            // Before 1973 in milliseconds is a recent date in seconds.
            if offer.timestamp < 100_000_000_000 {
                detail += "; it looks like seconds, and StoreKit's timestamp is milliseconds"
            }
            return detail
        }
    }

    static func run(_ options: VerifyOfferV1Options, io: CommandIO) -> Int32 {
        guard !options.showHelp else { return Output.print(HelpText.of(Commands.verifyOfferV1), io: io) }
        let key: KeyOptions.Resolved
        let bundleID: String
        do throws(KeyOptions.Failure) {
            (key, bundleID) = try resolve(options.keyOptions, io: io)
        } catch {
            io.error(error.message)
            if error.isUsage {
                io.error("usage: jwsinspect \(Commands.verifyOfferV1.usage[0]) (see jwsinspect help verify-offer-v1)")
            }
            return error.status.rawValue
        }
        let offer = PromotionalOfferV1(
            bundleID: bundleID, keyID: key.keyID, productID: options.productID ?? "", offerID: options.offerID ?? "",
            applicationUsername: options.applicationUsername ?? "", nonce: options.nonce ?? UUID(),
            timestamp: options.timestamp ?? 0)
        let report = Report(
            offer: offer, givenUsername: options.applicationUsername ?? "", keySummary: key.file.publicKey.summary,
            verified: offer.verifies(derSignature: options.signature, with: key.file.publicKey), now: io.now)
        let color = options.usesColor(stdoutIsTerminal: io.stdoutIsTerminal, environment: io.environment)
        let text = ResultRenderers.make(format: options.format, quiet: options.output.quiet, color: color).single {
            table(report, color: color)
        } record: {
            record(report)
        }
        let written = Output.print(text, io: io)
        return written != ExitStatus.success.rawValue ? written : ExitStatus(report.status).rawValue
    }

    /// The one key (a V1 signature signs its key ID, so one key is checked) and the bundle ID;
    /// the key file warnings go to standard error.
    private static func resolve(_ keys: KeyOptions, io: CommandIO) throws(KeyOptions.Failure) -> (
        KeyOptions.Resolved, String
    ) {
        let (resolved, warnings) = try keys.keys(environment: io.environment)
        guard let key = resolved.first else {
            throw .usage("a key is needed: --key FILE (or \(KeyOptions.keyFileVariable))")
        }
        guard resolved.count == 1 else {
            throw .usage("one --key verifies a V1 signature (its key ID is signed), not \(resolved.count)")
        }
        let bundleID = try keys.bundleID(environment: io.environment)
        for warning in warnings { io.error(warning) }
        return (key, bundleID)
    }

    // MARK: Text

    static func table(_ report: Report, color: Bool) -> String {
        func paint(_ text: String, _ style: TableRenderer.Style) -> String {
            color ? "\u{1b}[\(style.rawValue)m\(text)\u{1b}[0m" : text
        }
        let offer = report.offer
        let headline =
            report.verified
            ? paint("VALID", .green) + " — legacy promotional offer signature (V1), verified with the developer key "
            : paint("INVALID (\(report.status.rawValue))", .red)
                + " — legacy promotional offer signature (V1) does NOT verify with the developer key "
        var lines = [headline + visible(offer.keyID)]
        if report.isOld {
            lines.append(
                "  " + paint("warning", .yellow) + ": the timestamp is more than 24 hours old: the App Store refuses "
                    + "this signature (make a new one); the exit status is the signature's alone")
        }
        lines += ["", paint("CHECKS", .bold)]
        let signatureMark = report.verified ? paint("ok  ", .green) : paint("FAIL", .red)
        lines.append("  \(signatureMark)  signature  \(visible(report.signatureDetail))")
        let timestampMark = report.isOld ? paint("warn", .yellow) : paint("ok  ", .green)
        lines.append("  \(timestampMark)  timestamp  \(report.timestampDetail)")
        lines += ["", paint("SIGNED STRING", .bold) + "  (U+2063 INVISIBLE SEPARATOR shown as \(visibleSeparator))"]
        lines.append("  " + visible(offer.signedString))
        lines += ["", paint("FIELDS", .bold)]
        var username = offer.applicationUsername.lowercased()
        if username != report.givenUsername {
            username += "  (given as \(report.givenUsername); signed in lowercase)"
        } else if username.isEmpty {
            username = "(empty)"
        }
        let rows = [
            ("appBundleId", offer.bundleID), ("keyIdentifier", offer.keyID), ("productIdentifier", offer.productID),
            ("offerIdentifier", offer.offerID), ("applicationUsername", username), ("nonce", offer.nonceText),
            (
                "timestamp",
                "\(offer.timestamp)  \(ISO8601.string(offer.date))  (\(RelativeTime.phrase(offer.date, now: report.now)))"
            ),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + "  " + visible(value))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text from the command line made safe for the terminal, U+2063 shown visibly.
    static func visible(_ text: String) -> String {
        TerminalText.safe(replacingSeparator(in: text, with: visibleSeparator))
    }

    /// `text` with each U+2063 replaced (by scalar: it may sit beside combining marks).
    static func replacingSeparator(in text: String, with replacement: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\u{2063}" { out += replacement } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    // MARK: JSON

    /// The record's `type`: not a JWS, so none of inspect's kinds.
    static let type = "promotionalOfferSignatureV1"

    /// The record every subcommand prints (`JSONRecord`): the signature's verdict in the documented
    /// keys, then what was signed.
    static func record(_ report: Report) -> OrderedJSON {
        let offer = report.offer
        let checks: [OrderedJSON] = [
            .object([
                ("name", .string("signature")), ("passed", .bool(report.verified)),
                ("detail", .string(report.signatureDetail)),
            ]),
            // A warning, not a failure: the exit status is the signature's alone.
            .object([
                ("name", .string("timestamp")), ("passed", .bool(true)), ("detail", .string(report.timestampDetail)),
            ]),
        ]
        let summary =
            "Legacy promotional offer signature (V1) for \(offer.productID), offer \(offer.offerID): "
            + (report.verified ? "verified with the developer key \(offer.keyID)" : "does NOT verify")
            + (report.isOld ? "; older than 24 hours, so the App Store refuses it." : ".")
        let notes =
            report.isOld ? ["the timestamp is more than 24 hours old: the App Store refuses this signature"] : []
        let fields: OrderedJSON.Members = [
            ("appBundleId", .string(offer.bundleID)), ("keyIdentifier", .string(offer.keyID)),
            ("productIdentifier", .string(offer.productID)), ("offerIdentifier", .string(offer.offerID)),
            ("applicationUsername", .string(offer.applicationUsername.lowercased())),
            ("nonce", .string(offer.nonceText)),
        ]
        // What was signed, as `payload` holds a JWS's (the timestamp in milliseconds), and as
        // `display` shows it (the timestamp a date).
        let object = JSONRecord.record(
            .offerVerificationV1, source: "command line", type: type, status: report.status.rawValue,
            reason: report.signatureDetail, summary: summary, verified: report.verified, checks: checks, notes: notes,
            checkTime: .object([("time", .string(ISO8601.string(report.now))), ("basis", .string("now"))]),
            payload: .object(.init(distinct: fields + [("timestamp", .integer(Int64(offer.timestamp)))])),
            display: .object(.init(distinct: fields + [("timestamp", .string(ISO8601.string(offer.date)))])),
            extra: [
                ("key", .string(report.keySummary)), ("signedString", .string(offer.signedString)),
                ("olderThan24Hours", .bool(report.isOld)),
            ])
        return separatorEscaped(object)
    }

    /// U+2063 is invisible: escaped in every string, so it can be seen.
    private static func separatorEscaped(_ value: OrderedJSON) -> OrderedJSON {
        switch value {
        case .string(let text) where text.unicodeScalars.contains("\u{2063}"):
            .preformatted(replacingSeparator(in: value.serialized(pretty: false), with: "\\u2063"))
        case .object(let object): .object(.init(distinct: object.members.map { ($0.key, separatorEscaped($0.value)) }))
        case .array(let values): .array(values.map(separatorEscaped))
        default: value
        }
    }
}
