package import FoundationEssentials

extension Inspection {
    /// Whether the payload grants access at `accessTime`, decided as `--require-active` decides
    /// it: on a transaction or app transaction itself, on a notification's first nested one.
    package struct AccessDecision: Sendable, Equatable {
        package let access: Entitlement.Access
        /// The kind of payload that decided (`notification` when a notification has no
        /// transaction to decide on).
        package let kind: PayloadKind
        /// The nested token that decided ("data.signedTransactionInfo"); nil for the payload itself.
        package let path: String?
        /// When access was decided: `--at`, else now.
        package let time: Date
    }

    /// What renderers show beside the checks, with the payload decoded once.
    package struct Presentation: Sendable {
        /// The payload's fields rendered for reading.
        package let display: PayloadDisplay
        /// One plain-language line for support staff.
        package let summary: String
        /// Whether the payload grants access, in the summary's words.
        package let access: AccessDecision
    }

    /// `display`, `summary` and `access` together (nil when malformed); computed on demand,
    /// so `--quiet` runs never pay for it.
    package var fullPresentation: Presentation? { presentation(.utc) }

    /// `fullPresentation` with its dates written in `style` (tables in a reader's time zone).
    package func presentation(_ style: DateStyle) -> Presentation? {
        guard let envelope, let (summary, access) = summaryAndAccess(style) else { return nil }
        let display = PayloadDisplay(kind: kind, payload: envelope.sections.payload.object, now: now, style: style)
        return Presentation(display: display, summary: summary, access: access)
    }

    /// `presentation`'s summary and access decision, without its display (JSON output writes
    /// the display straight from the payload: `PayloadDisplay.write`); nil when malformed.
    package func summaryAndAccess(_ style: DateStyle) -> (summary: String, access: AccessDecision)? {
        guard let envelope else { return nil }
        let payload = envelope.sections.payload.object
        if let receipt = envelope.receipt {
            let access = receipt.payload.access(at: accessTime, style: style).decided(by: ["payload"])
            let decision = gated(AccessDecision(access: access, kind: kind, path: nil, time: accessTime))
            return (receipt.payload.summary(at: accessTime, access: decision.access, style: style), decision)
        }
        let decision = gated(accessDecision(payload, style: style))
        let nestedAccess = decision.path == nil ? nil : (decision.kind, decision.access)
        let summary = Entitlement.summary(
            kind: kind, payload: payload, now: accessTime, access: decision.path == nil ? decision.access : nil,
            nested: nestedAccess, style: style)
        return (summary, decision)
    }

    /// Whether the payload grants access at `accessTime` (nil when malformed).
    package var access: AccessDecision? {
        envelope.map { envelope in
            if let receipt = envelope.receipt {
                return gated(
                    AccessDecision(
                        access: receipt.payload.access(at: accessTime).decided(by: ["payload"]), kind: kind, path: nil,
                        time: accessTime))
            }
            return gated(accessDecision(Self.accessMembers(envelope.sections.payload)))
        }
    }

    /// Whether an access decision is made at all: only on data that verified (`valid`), or
    /// that is authentic and failed `--require-active` alone (`inactive`, which is itself a
    /// decision that grants nothing). A forged, unverified or another app's token never
    /// grants access, whatever its payload says.
    package var decidesAccess: Bool {
        status == .valid || (status == .inactive && isAuthentic)
    }

    /// `decision`, or no decision when `decidesAccess` is false: `grantsAccess` is then nil,
    /// and the explanation says why (and, for data not checked at all, what it would mean).
    private func gated(_ decision: AccessDecision) -> AccessDecision {
        if decidesAccess, status == .valid || decision.access.grantsAccess != true { return decision }
        // A StoreKit 1 transaction receipt's own words say it is not proven, and whom to ask.
        if status == .unverifiable, decision.access.grantsAccess == nil { return decision }
        let access: Entitlement.Access
        // Nothing cryptographic ran (`--no-verify`, whatever an expectation then said).
        let unchecked = status == .unverified || !checks.contains { $0.name == .alg || $0.name == .signature }
        switch status {
        case _ where unchecked:
            access = .withheld("not verified (nothing was checked)", brief: "not verified", wouldBe: decision.access)
        case _ where isAuthentic:
            access = .withheld("that failed verification (\(status.rawValue))", brief: "failed verification")
        default:
            access = .withheld("not proven authentic (\(status.rawValue))", brief: "not proven authentic")
        }
        return AccessDecision(access: access, kind: decision.kind, path: decision.path, time: decision.time)
    }

    /// Whether this authentic transaction is about the customer its access context names:
    /// nil when none is named (or only one no signed data can tie), or it is no authentic
    /// transaction.
    package var isTiedToCustomer: Bool? {
        guard let customer = accessContext.customer, kind == .transaction, isAuthentic, let envelope else {
            return nil
        }
        if case .untiable = customer { return nil }
        return Entitlement.isTied(customer, Self.accessMembers(envelope.sections.payload))
    }

    /// Whether the signature and certificate chain verified, here and in every nested token,
    /// whatever the expectations (`--bundle-id`, `--require-active`, …) said. False under
    /// `--no-verify`, which checks nothing cryptographic. A StoreKit Testing in Xcode token
    /// can be authentic to its pinned certificate, yet it is not signed by the App Store (`isXcode`).
    package var isAuthentic: Bool {
        guard envelope != nil, checks.contains(where: { $0.name == .signature && $0.passed }),
            checks.contains(where: { ($0.name == .chain || $0.name == .key) && $0.passed })
        else { return false }
        return checks.allSatisfy { check in
            let status = check.name.failureStatus
            return check.passed || !Self.unproven.contains(status)
        }
            && nested.allSatisfy { $0.inspection.isAuthentic }
    }

    /// Whether this token's own signature and chain verified, whatever its nested tokens say: a
    /// notification whose nested transaction failed is still the App Store's own notification.
    package var outerIsAuthentic: Bool {
        guard envelope != nil, checks.contains(where: { $0.name == .signature && ($0.passed || $0.isPending) }),
            checks.contains(where: { ($0.name == .chain || $0.name == .key) && $0.passed })
        else { return false }
        return checks.allSatisfy { !$0.failed || !Self.unproven.contains($0.name.failureStatus) }
    }

    /// The statuses of a check that leaves the data unproven: its signature, its chain, a
    /// revocation check that could not be made, or a signature nothing here verifies.
    private static let unproven: Set<Status> = [
        .invalidSignature, .invalidChain, .revocationUnavailable, .unverifiable,
    ]

    /// The path of the nested token whose failure decided the status, when one did.
    package var failedNestedPath: String? {
        if case .nestedFailed(let path, _) = reasonText { return path }
        return nil
    }

    /// The developer key an authentic developer-signed token verified with (`--key`), else nil.
    package var developerKeyID: String? {
        guard isAuthentic, checks.contains(where: { $0.name == .key && $0.passed }) else { return nil }
        if case .string(let kid)? = jws?.header.object["kid"] { return kid }
        return nil
    }

    /// Whether the token is authentic under a `jwsinspect mint ca` test CA given with `--root`
    /// (its certificates' common names end "(not Apple)"): test data, never Apple's.
    private static let mintedMarkerBytes = Array(AppleCertificates.mintedMarker.utf8)

    package var isMintedTestData: Bool {
        isAuthentic && !isXcode
            && chain.contains { summary in
                // The marker is ASCII: a subject without its bytes cannot hold it (most subjects,
                // found so without Character matching); one with them is asked as before.
                let marker = Self.mintedMarkerBytes
                let hasBytes = summary.subject.utf8.withContiguousStorageIfAvailable { bytes in
                    bytes.count >= marker.count
                        && (0...(bytes.count - marker.count)).contains { start in
                            bytes[start] == marker[0] && bytes[start..<start + marker.count].elementsEqual(marker)
                        }
                }
                return hasBytes != false && summary.subject.contains(AppleCertificates.mintedMarker)
            }
    }

    /// Whether the token is authentic and signed through an intermediate jwsinspect knows, by
    /// its fingerprint, as Apple's (App Store data is; a `--root` of one's own is not).
    package var isAppleSigned: Bool {
        isAuthentic && !isXcode && chain.count > 1 && chain[1].knownAs != nil
    }

    /// The decision on `payload` (this token's members), or for a notification on its nested
    /// tokens (`Entitlement.Facts.of`), with what the access context holds beside it.
    private func accessDecision(_ payload: [String: JSONValue], style: DateStyle = .utc) -> AccessDecision {
        let nestedFacts =
            kind == .notification
            ? nested.compactMap { item in
                item.inspection.envelope.map {
                    (item.path, item.inspection.kind, Self.accessMembers($0.sections.payload))
                }
            } : []
        let facts = Entitlement.Facts.of(kind: kind, payload: payload, nested: nestedFacts).with(accessContext)
        let access = Entitlement.decide(facts, at: accessTime, style: style)
        return AccessDecision(
            access: access, kind: facts.kind, path: facts.path == "payload" ? nil : facts.path, time: accessTime)
    }

    /// The members access is decided on, without decoding the rest of the payload.
    private static func accessMembers(_ payload: CompactJWS.DecodedSegment) -> [String: JSONValue] {
        if payload.isComplete { return payload.essentials }
        let selected = try? JSONValue.decodeObject(payload.decodable ?? payload.bytes, selection: accessSelection)
        return (selected ?? nil)?.members ?? payload.essentials
    }

    private static let accessSelection = MemberSelection(values: Entitlement.accessKeys, recognition: false)
}
