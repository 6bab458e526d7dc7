internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect sign KIND`: makes what a developer signs with an In-App Purchase key (an App
/// Store Server API token, offer and eligibility JWS, an Advanced Commerce request, a legacy
/// offer signature) and prints it: one line, or with `--format json` an object.
enum SignCommand {
    /// The largest `--request @FILE` read.
    static let requestSizeLimit = 1 << 20

    static func run(_ options: SignOptions, io: CommandIO) -> Int32 {
        guard !options.showHelp, let kind = options.kind else {
            return Output.print(HelpText.of(Commands.sign), io: io)
        }
        do throws(KeyOptions.Failure) {
            let output = try make(kind, options, io: io)
            return Output.print(output, io: io)
        } catch {
            io.error(error.message)
            if error.isUsage { io.error("usage: jwsinspect \(Commands.sign.usage[0]) (see jwsinspect help sign)") }
            return error.status.rawValue
        }
    }

    /// The text to print for `kind`, after the key warnings have gone to standard error.
    private static func make(_ kind: SignOptions.Kind, _ options: SignOptions, io: CommandIO) throws(KeyOptions.Failure)
        -> String
    {
        let keys = options.keyOptions
        let (key, keyID, warnings) = try keys.signingKey(environment: io.environment)
        let bundleID = try keys.bundleID(environment: io.environment)
        if kind == .promotionalOfferV1 {
            for warning in warnings { io.error(warning) }
            return try offerV1(options, key: key, keyID: keyID, bundleID: bundleID, io: io)
        }
        let issuerID = try keys.issuerID(environment: io.environment)
        let feature = try self.feature(kind, options)
        for warning in warnings { io.error(warning) }
        let claims = DeveloperToken.claims(
            feature, issuerID: issuerID, bundleID: bundleID,
            issuedAt: Int64(io.now.timeIntervalSince1970.rounded(.down)),
            nonce: UUID())
        let signed: DeveloperToken.Signed
        do {
            signed = try DeveloperToken.sign(claims: claims, keyID: keyID, key: key)
        } catch {
            throw KeyOptions.Failure(message: "sign: signing failed: \(error)", status: .software)
        }
        return ResultRenderers.make(format: options.format, quiet: options.output.quiet).single {
            signed.token + "\n"
        } record: {
            // A `token` record, as `mint --format json` writes: its type as inspect names it, the
            // JWS, its header, its payload.
            TokenRecord.record(
                type: kind.payloadKind.rawValue, jws: signed.token, header: .raw(signed.headerJSON),
                payload: .raw(signed.claimsJSON))
        }
    }

    /// The kind's feature claims from the options (parsing made sure the required ones are there).
    private static func feature(_ kind: SignOptions.Kind, _ options: SignOptions) throws(KeyOptions.Failure)
        -> DeveloperToken.Feature
    {
        switch kind {
        case .apiToken:
            return .apiToken(lifetime: options.lifetime)
        case .promotionalOfferV1:
            preconditionFailure("promotional-offer-v1 is a signature, not a JWS (made by offerV1)")
        case .promotionalOffer:
            return .promotionalOffer(
                productID: options.productID ?? "", offerID: options.offerID ?? "", transactionID: options.transactionID
            )
        case .introductoryOfferEligibility:
            return .introductoryOfferEligibility(
                productID: options.productID ?? "", allowIntroductoryOffer: options.allowIntroductoryOffer ?? false,
                transactionID: options.transactionID ?? "")
        case .advancedCommerce:
            return .advancedCommerce(requestJSON: try requestJSON(options.request ?? ""))
        }
    }

    /// `--request`'s JSON: the text, or `@FILE`'s bytes, without surrounding whitespace; an object.
    static func requestJSON(_ given: String) throws(KeyOptions.Failure) -> [UInt8] {
        var bytes = Array(given.utf8)
        var source = "--request"
        if given.hasPrefix("@") {
            let path = String(given.dropFirst())
            source = "--request file '\(path)'"
            switch System.readFile(path, limit: requestSizeLimit) {
            case .failure(let reason):
                throw KeyOptions.Failure(message: "--request: cannot read '\(path)': \(reason)", status: .unreadable)
            case .success(nil):
                throw .usage("\(source) is over \(InputStream.describe(size: requestSizeLimit))")
            case .success(let read?):
                bytes = read
            }
        }
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        let trimmed = Array(
            bytes.drop(while: whitespace.contains).reversed().drop(while: whitespace.contains).reversed())
        if let problem = DeveloperToken.requestProblem(trimmed) {
            throw .usage("\(source) \(problem); it must be one JSON object")
        }
        return trimmed
    }

    /// `promotional-offer-v1`: the signature line, or the four values the app passes to StoreKit.
    private static func offerV1(_ options: SignOptions, key: PrivateKey, keyID: String, bundleID: String, io: CommandIO)
        throws(KeyOptions.Failure) -> String
    {
        let offer = PromotionalOfferV1(
            bundleID: bundleID, keyID: keyID, productID: options.productID ?? "", offerID: options.offerID ?? "",
            applicationUsername: options.applicationUsername ?? "", nonce: options.nonce ?? UUID(),
            timestamp: options.timestamp ?? Int64((io.now.timeIntervalSince1970 * 1000).rounded(.down)))
        let signature: String
        do {
            signature = try offer.signature(with: key)
        } catch {
            throw KeyOptions.Failure(message: "sign: signing failed: \(error)", status: .software)
        }
        return ResultRenderers.make(format: options.format, quiet: options.output.quiet).single {
            signature + "\n"
        } record: {
            // What the app passes to StoreKit: the signature, and what it signed as `payload`
            // holds a JWS's (verify-offer-v1's `payload` has the same members).
            .object(
                .init(
                    distinct: RecordType.offerSignatureV1.head + [
                        ("type", .string(VerifyOfferV1Command.type)), ("signature", .string(signature)),
                        (
                            "payload",
                            .object([
                                ("appBundleId", .string(offer.bundleID)), ("keyIdentifier", .string(keyID)),
                                ("productIdentifier", .string(offer.productID)),
                                ("offerIdentifier", .string(offer.offerID)),
                                ("applicationUsername", .string(offer.applicationUsername.lowercased())),
                                ("nonce", .string(offer.nonceText)), ("timestamp", .integer(Int64(offer.timestamp))),
                            ])
                        ),
                    ]))
        }
    }
}
