internal import FoundationEssentials

extension Verifier {
    /// Inspects a realtime response (what a developer's Get Retention Message endpoint answers)
    /// through the same stages as any envelope: the document is read, checked against Apple's
    /// model (`RealtimeResponseModel`: one option, its members; `invalid-claims`, exit 7, naming
    /// the member), then what is signed in it: a V2 offer signature (a JWS) and the JWS in
    /// `advancedCommerceData` verified as nested tokens, with `--key`; a V1 signature checked
    /// against the key its `keyId` names and the app's `--bundle-id`, which it signs. The
    /// document itself is signed by nothing: it is never authentic, and grants no access.
    ///
    /// - Parameters:
    ///   - document: the JSON document's bytes (`RealtimeResponseModel.recognises` it).
    ///   - source: where it came from, carried into the result.
    package func inspectRealtimeResponse(_ document: [UInt8], source: String) -> Inspection {
        let body: [String: JSONValue]
        do {
            guard let object = try JSONValue.decode(document).objectValue else {
                return .malformed(source: source, reason: "a realtime response is a JSON object")
            }
            body = object
        } catch {
            return .malformed(source: source, reason: "a realtime response that is not JSON: \(error)")
        }
        let response = RealtimeResponseEnvelope(bytes: document, body: body)
        var report = Report(chain: [], note: nil)
        let problems = RealtimeResponseModel.problems(body)
        report.add(
            .check(
                Check(
                    Self.realtimeResponse, passed: problems.isEmpty,
                    problems.isEmpty
                        ? "as Apple's model defines it: \(response.option ?? "")"
                        : "Apple's Retention Messaging would refuse it: " + problems.joined(separator: "; "))))
        var nested: [Inspection.Nested] = []
        if problems.isEmpty, case .object(let offer)? = body["promotionalOffer"] {
            if case .string(let token)? = offer["promotionalOfferSignatureV2"] {
                let path = "promotionalOffer.promotionalOfferSignatureV2"
                nested.append(.init(path: path, inspection: nestedToken(token, kind: .promotionalOffer, path, source)))
            } else if case .object(let fields)? = offer["promotionalOfferSignatureV1"] {
                for outcome in signatureV1(fields) { report.add(outcome) }
            }
        }
        if problems.isEmpty, case .object(let info)? = body["advancedCommerceInfo"],
            case .string(let text)? = info["advancedCommerceData"],
            let data = RealtimeResponseModel.advancedCommerceData(text)
        {
            for key in data.keys.sorted() {
                guard case .string(let token) = data[key], PayloadDisplay.isCompactJWS(token) else { continue }
                let path = "advancedCommerceInfo.advancedCommerceData \u{203A} \(key)"
                nested.append(.init(path: path, inspection: nestedToken(token, kind: nil, path, source)))
            }
        }
        for expectation in policies.expectations {
            report.addExpectation(expectation.decide(.realtimeResponse(response)))
        }
        let signed = nested.isEmpty ? report.checks.contains { $0.name == Self.offerSignature } : true
        let (status, reason) = Inspection.verdict(
            checks: report.checks, nested: nested, verifiesSignatures: options.verifySignatures,
            unverified: "NOT VERIFIED (\(options.hints.word(.decodeOnly))): its members were checked; "
                + "what is signed in it was not",
            verdict: signed
                ? "its members as Apple's model defines them, its offer signed"
                : "its members as Apple's model defines them, nothing in it signed",
            checked: "its members", expectationsChecked: report.comparedExpectation,
            at: Inspection.CheckTime(date: options.now, basis: .now))
        var inspection = Inspection(
            source: source, kind: .realtimeResponse, status: status, reason: reason, checks: report.checks,
            notes: report.notes, envelope: .realtimeResponse(response), chain: [], checkTime: nil, validNow: nil,
            isXcode: false, nested: nested, now: options.now, accessTime: options.accessTime)
        inspection.setAccessContext(options.accessContext)
        return inspection
    }

    /// `realtime-response`: the document against Apple's model.
    static let realtimeResponse = Check.Name("realtime-response", failing: .invalidClaims)
    /// `offer-signature`: a V1 promotional offer signature over its fields and the app's bundle ID.
    static let offerSignature = Check.Name("offer-signature", failing: .invalidSignature)

    /// A JWS in a realtime response, verified as inspect verifies any (`--key` for a developer's).
    private func nestedToken(_ token: String, kind: PayloadKind?, _ path: String, _ source: String) -> Inspection {
        var nestedOptions = Self.nestedOptions(options)
        nestedOptions.kindOverride = kind
        let verifier = Verifier(
            options: nestedOptions, cache: cache, payloadKeys: payloadKeys, policies: nestedPolicies,
            nestedPolicies: nestedPolicies)
        return verifier.inspect(token, source: "\(source) \u{203A} \(path)")
    }

    /// The V1 signature's checks: the key its `keyId` names (`--key`), then the signature over
    /// the fields and `--bundle-id`; a note when Apple would refuse it for its age.
    private func signatureV1(_ fields: [String: JSONValue]) -> [StepOutcome] {
        guard options.verifySignatures else {
            return [.note("the V1 offer signature was not checked (\(options.hints.word(.decodeOnly)))")]
        }
        let keyID = fields["keyId"]?.stringValue ?? ""
        guard let key = options.developerKeys.first(where: { Exact.same($0.keyID, keyID) }) else {
            return [
                .check(
                    Check(
                        .key, passed: false,
                        "no --key for keyId \(Excerpt.of(keyID)): the V1 offer signature is checked with the "
                            + "In-App Purchase key it names (give AuthKey_\(Excerpt.of(keyID)).p8 or its public key)"))
            ]
        }
        var outcomes: [StepOutcome] = [.check(Check(.key, passed: true, "the developer key \(key.keyID) (--key)"))]
        guard let bundleID = options.expectedBundleId else {
            outcomes.append(
                .check(
                    Check(
                        Self.offerSignature, passed: false,
                        "not checked: a V1 offer signature signs the app's bundle ID; give --bundle-id")))
            return outcomes
        }
        guard let nonce = fields["nonce"]?.stringValue.flatMap(UUID.init(uuidString:)),
            case .integer(let timestamp)? = fields["timestamp"]
        else { return outcomes }
        let offer = PromotionalOfferV1(
            bundleID: bundleID, keyID: keyID, productID: fields["productId"]?.stringValue ?? "",
            offerID: fields["offerIdentifier"]?.stringValue ?? "",
            applicationUsername: fields["appAccountToken"]?.stringValue ?? "", nonce: nonce, timestamp: timestamp)
        switch PromotionalOfferV1.derSignature(base64: fields["encodedSignature"]?.stringValue ?? "") {
        case .failure(let problem):
            outcomes.append(.check(Check(Self.offerSignature, passed: false, "encodedSignature \(problem)")))
        case .success(let der):
            let verifies = offer.verifies(derSignature: der, with: key.publicKey)
            outcomes.append(
                .check(
                    Check(
                        Self.offerSignature, passed: verifies,
                        verifies
                            ? "ES256 over the V1 fields and the bundle ID \(bundleID), with the key \(key.keyID)"
                            : "does not verify over the V1 fields and the bundle ID \(bundleID) with the key "
                                + "\(key.keyID): another bundle ID, key or field, or a forgery")))
        }
        if offer.isOlderThanLifetime(at: options.now) {
            outcomes.append(
                .note(
                    "the V1 offer signature's timestamp is \(ISO8601.string(offer.date)): Apple refuses one more than "
                        + "24 hours old"))
        }
        return outcomes
    }
}
