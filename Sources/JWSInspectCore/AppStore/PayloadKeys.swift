/// The payload members verification reads. Batch verification decodes only these
/// (each decoded member costs about a microsecond in `JSONDecoder`); displays decode
/// everything, on demand.
struct PayloadKeys: Sendable {
    /// Members whose values are decoded; the members `PayloadKind.recognise` needs are
    /// recorded too, as `null`, in `CompactJWS.DecodedSegment.essentials`.
    let selection: MemberSelection

    /// The members needed under `options`: those of the policies it chooses (`Policies.make`).
    init(for options: VerificationOptions) {
        self.init(policies: Policies.make(options), kindOverride: options.kindOverride)
    }

    /// The members `policies` read, with the signing time, and a notification's bodies (nested
    /// tokens, identity; asked for only when the payload is, or is taken as, a notification).
    /// (Recognising an Xcode token, which has one certificate, reads the whole payload.)
    init(policies: Policies, kindOverride: PayloadKind?) {
        self.selection = MemberSelection(
            values: policies.payloadMembers, notificationValues: NotificationBody.names,
            notificationValuesAlways: kindOverride == .notification, recognition: true)
    }

    /// Every member any policy reads, with those that recognise the kind and a notification's bodies.
    static let all: PayloadKeys = {
        var values: [String] = []
        let declared = Policies.all.flatMap { $0.payloadMembers }
        let recognition = PayloadKind.recognitionRules.flatMap { $0.alternatives.flatMap { $0 } }
        for member in recognition + Inspection.CheckTime.payloadMembers + declared + NotificationBody.names
        where !values.contains(member) {
            values.append(member)
        }
        return PayloadKeys(values: values)
    }()

    /// Exactly `values`, without recognition (tests decode everything with it).
    init(values: [String]) {
        self.selection = MemberSelection(values: values, recognition: false)
    }
}
