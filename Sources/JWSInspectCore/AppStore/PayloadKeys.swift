/// The payload members verification reads. Batch verification decodes only these
/// (each decoded member costs about a microsecond in `JSONDecoder`); displays decode
/// everything, on demand.
struct PayloadKeys: Sendable {
    /// Members whose values are decoded; the members `PayloadKind.recognise` needs are
    /// recorded too, as `null`, in `CompactJWS.DecodedSegment.essentials`.
    let selection: MemberSelection

    /// The members needed under `options`: always the signing time and a notification's
    /// bodies (nested tokens, identity; asked for only when the payload is, or is taken as, a
    /// notification); the compared fields only when an expectation asks for them. (Recognising
    /// an Xcode token, which has one certificate, reads the whole payload.)
    init(for options: VerificationOptions) {
        var values = ["signedDate", "receiptCreationDate"]
        if options.expectedBundleId != nil || options.expectedAppAppleId != nil || options.expectedEnvironment != nil {
            values += ["bundleId", "appAppleId", "environment", "receiptType"]
        }
        if options.expectedAccountToken != nil { values.append("appAccountToken") }
        if options.deviceVerificationID != nil { values += ["deviceVerification", "deviceVerificationNonce"] }
        if options.requireActive {
            values += ["revocationDate", "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate"]
        }
        self.selection = MemberSelection(
            values: values, notificationValues: NotificationBody.names,
            notificationValuesAlways: options.kindOverride == .notification, recognition: true)
    }

    /// Every member any check reads.
    static let all = PayloadKeys(
        values: PayloadKind.recognitionRules.flatMap { $0.alternatives.flatMap { $0 } }
            + ["signedDate", "environment"] + NotificationBody.names + [
                "bundleId", "appAppleId", "appAccountToken", "deviceVerificationNonce", "revocationDate",
                "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate",
            ])

    private init(values: [String]) {
        self.selection = MemberSelection(values: values, recognition: false)
    }
}
