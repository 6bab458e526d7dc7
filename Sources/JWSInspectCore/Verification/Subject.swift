internal import FoundationEssentials

/// One JWS as every policy reads it: decoded once, before any policy runs, and never changed
/// (the first stage of a run; `Sources/README.md` shows the others). Never copied
/// (`~Copyable`): it holds a token's whole state, and the policies borrow it.
struct TokenSubject: ~Copyable {
    let jws: CompactJWS
    let parsedChain: ParsedChain
    let signingPrefix: SHA256Prefix?
    /// What the verifier has learned so far (validated chains, keys), for the trust model's steps.
    let cache: VerificationCache
    let kind: PayloadKind
    let checkTime: Inspection.CheckTime
    /// Why the certificates are checked now, when the payload's signing time is unusable.
    let checkTimeNote: String?
    /// Why the kind is unknown, when the payload carries the members of two kinds.
    let kindNote: String?
    /// Where the signing key comes from, and the `x5c` and `key` checks that decided it:
    /// decided once, before any policy runs (`TrustModel.select`).
    let trust: TrustDecision
    /// A developer-signed token: a `kid` and no `x5c` in its header (the claims policies apply).
    let isDeveloperSigned: Bool
    /// Every claim of a developer-signed token, decoded once (rare: App Store data decodes only
    /// the members its policies declare) for its kind, its trust model, its identity and the
    /// claims policies; empty for any other token.
    let claims: [String: JSONValue]
    /// Whether the ES256 verification is left to the caller (its check pending meanwhile).
    let deferringSignature: Bool

    /// The trust model; nil when `x5c` selects none.
    var model: TrustModel? { trust.model }
    /// A StoreKit Testing in Xcode token: one self-signed certificate, not the App Store's chain.
    var isXcode: Bool { trust.isXcode }

    init(
        jws: CompactJWS, chain: ParsedChain, signingPrefix: SHA256Prefix?, options: VerificationOptions,
        cache: VerificationCache, deferringSignature: Bool
    ) {
        self.jws = jws
        self.parsedChain = chain
        self.signingPrefix = signingPrefix
        self.cache = cache
        self.deferringSignature = deferringSignature
        let payload = jws.payload.essentials
        let isDeveloperSigned = chain.developerKeyID != nil
        self.isDeveloperSigned = isDeveloperSigned
        let claims = isDeveloperSigned ? jws.payload.object : [:]
        self.claims = claims
        let kind =
            options.kindOverride
            ?? (isDeveloperSigned
                // Rare (App Store data always has x5c): a developer-signed token, known by its `aud`.
                ? PayloadKind.recogniseDeveloperSigned(claims)
                : jws.payload.recognisedKind ?? PayloadKind.recognise(payload))
        self.kind = kind
        kindNote =
            kind == .unknown && !isDeveloperSigned && options.kindOverride == nil
            ? PayloadKind.ambiguity(payload) : nil
        (checkTime, checkTimeNote) = Inspection.CheckTime.decide(options: options, payload: payload, kind: kind)
        self.trust = TrustModel.select(jws: jws, chain: chain, options: options, claims: claims)
    }

    /// What the backend expectations decide on, once the nested tokens are inspected: this
    /// payload, or for a notification the tokens nested in it.
    func expectationSubject(nested: [Inspection.Nested]) -> ExpectationSubject {
        let payload = jws.payload.essentials
        var decided: [DecidedPayload] = []
        if kind == .notification {
            for item in nested {
                guard let payload = item.inspection.jws?.payload.essentials else { continue }
                decided.append(DecidedPayload(path: item.path, payload: payload, kind: item.inspection.kind))
            }
        } else {
            decided.append(DecidedPayload(path: nil, payload: payload, kind: kind))
        }
        return .token(
            DecidedToken(
                kind: kind, isXcode: isXcode,
                identity: AppIdentity(kind: kind, payload: isDeveloperSigned ? claims : payload), payload: payload,
                decided: decided))
    }
}

/// One legacy receipt as its checks read it, decoded once and never changed: the PKCS#7
/// container, its check time, and whether StoreKit Testing in Xcode signed it.
struct ReceiptSubject {
    let receipt: ReceiptEnvelope
    let checkTime: Inspection.CheckTime
    /// Why the certificates are checked now, when `receipt_creation_date` is unusable.
    let checkTimeNote: String?
    /// Signed by StoreKit Testing in Xcode's self-signed certificate, not by the App Store.
    let isXcode: Bool

    init(receipt: ReceiptEnvelope, options: VerificationOptions) {
        self.receipt = receipt
        if case .storeKitTesting = ReceiptChain.signer(of: receipt.container) {
            isXcode = true
        } else {
            isXcode = false
        }
        let payload = receipt.payload
        (checkTime, checkTimeNote) = Inspection.CheckTime.decide(
            options.timePolicy, now: options.now, hints: options.hints
        ) {
            let reading = payload.creation
            if case .date(let created) = reading { return .date(created, field: "receipt_creation_date") }
            let why: String?
            switch reading {
            case .unreadable(let text) where payload.creationDateText == nil || payload.creationDate != nil:
                // Another ASN.1 type (an INTEGER), or the field more than once: unreadable, not absent.
                why = text
            default:
                why = payload.creationDateText.map { "receipt_creation_date is \"\($0)\", not an RFC 3339 date" }
            }
            return .unusable(
                .init(name: "receipt_creation_date", container: "the receipt"), why == nil ? .absent : .notADate,
                note: "\(why ?? "receipt_creation_date is absent"): certificates checked now")
        }
    }
}

/// What the backend expectations (`ExpectationPolicy`) decide on, for every envelope.
enum ExpectationSubject {
    case token(DecidedToken)
    /// A legacy receipt, answered from its own fields.
    case receipt(ReceiptEnvelope, isXcode: Bool)
    /// A StoreKit 1 transaction receipt, answered from what it says (nothing in it is proven).
    case transactionReceipt(TransactionReceiptEnvelope)
    /// A realtime response: unsigned, and naming no app, environment or customer of its own.
    case realtimeResponse(RealtimeResponseEnvelope)
}

/// A JWS as the backend expectations read it.
struct DecidedToken {
    let kind: PayloadKind
    let isXcode: Bool
    /// The fields compared against `--bundle-id`, `--app-apple-id` and `--environment`.
    let identity: AppIdentity
    /// The token's own payload (its decoded members).
    let payload: [String: JSONValue]
    /// What the per-transaction expectations decide on: this payload, or the ones nested in a notification.
    let decided: [DecidedPayload]
}

/// A payload the per-transaction expectations look at, and its label for messages
/// ("data.signedTransactionInfo ").
struct DecidedPayload {
    /// Its path in the notification ("data.signedTransactionInfo"); nil for the token itself.
    let path: String?
    let payload: [String: JSONValue]
    let kind: PayloadKind

    /// The path and a space, as messages start with it; empty for the token itself.
    var label: String { path.map { $0 + " " } ?? "" }
}

extension Certificate {
    /// A short name for messages: the common name in quotes, else the subject.
    var quotedName: String { "\"\(commonName ?? subject)\"" }
}
