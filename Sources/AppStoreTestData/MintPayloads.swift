package import FoundationEssentials
package import JWSInspectCore

/// The kinds `jwsinspect mint` signs, named as `inspect` names them (its JSON `type` and
/// `--type`: `renewalInfo`); the command line accepts the hyphenated spelling too.
package enum MintKind: String, Sendable, CaseIterable {
    case transaction
    case renewalInfo
    case notification
    case appTransaction
    case realtimeRequest

    /// The kind in file names and sentences: `renewal-info`.
    package var hyphenated: String {
        rawValue.reduce(into: "") { text, character in
            if character.isUppercase { text += "-" + character.lowercased() } else { text.append(character) }
        }
    }
}

/// What a minted payload is about: app, environment, the moment it is signed, and for notifications the type.
///
/// The notification type also shapes the transaction and renewal info minted for it (an `EXPIRED`
/// notification nests an expired transaction and renewal info that will not renew), so that a
/// notification and the payloads nested in it, minted with one context, agree.
package struct MintContext: Sendable {
    /// The app's bundle ID (`bundleId`).
    package var bundleID: String
    /// "Sandbox" (default), "Production", "Xcode" or "LocalTesting".
    package var environment: String
    /// `signedDate` (for an app transaction `receiptCreationDate`); the other dates are placed around it.
    package var now: Date
    /// The notification's `notificationType` ("SUBSCRIBED").
    package var notificationType: String
    /// The notification's `subtype`; nil for `MintPayloads.defaultSubtype(notificationType:)`.
    package var subtype: String?

    package init(
        bundleID: String = "com.example.app", environment: String = "Sandbox", now: Date = Date(),
        notificationType: String = "SUBSCRIBED", subtype: String? = nil
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.now = now
        self.notificationType = notificationType
        self.subtype = subtype
    }

    /// The subtype the notification carries: the one given, else the type's default.
    package var effectiveSubtype: String? {
        subtype ?? MintPayloads.defaultSubtype(notificationType: notificationType)
    }
}

/// Why test data was not made, in one line: an assignment, a template or its JSON refused, a
/// CA folder that does not read, or an OpenSSL call that failed (with its error queue).
/// `jwsinspect mint` says it and exits with a status; nothing in this module stops the process.
package struct MintError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

package enum MintPayloads {
    /// The device `AppStore.deviceVerificationID` minted app transactions' `deviceVerification`
    /// is computed for (`jwsinspect --device-id` checks it).
    package static let deviceVerificationID = MintPayloadBuilder.deviceVerificationID

    /// A realistic, complete payload of `kind` (see `MintPayloadBuilder` for the values): every
    /// field Apple documents for it, but those that only apply in special cases (revocation
    /// fields outside refunds, offer fields, preorder, Advanced Commerce and commitment plans, a
    /// previous purchase continued),
    /// with IDs and dates consistent across kinds and with the context's notification type.
    ///
    /// A notification's `data` (or `appData`) lacks the signed members: the caller signs the
    /// payloads `nestedKinds(notificationType:subtype:)` lists and inserts them.
    package static func payload(_ kind: MintKind, context: MintContext) -> OrderedJSON.Object {
        let builder = MintPayloadBuilder(context: context)
        switch kind {
        case .transaction: return builder.transaction()
        case .renewalInfo: return builder.renewalInfo()
        case .notification: return builder.notification()
        case .appTransaction: return builder.appTransaction()
        case .realtimeRequest: return builder.realtimeRequest()
        }
    }

    /// The subtype a notification type gets when none is given: Apple always sends one for these types.
    package static func defaultSubtype(notificationType: String) -> String? {
        switch notificationType {
        case "SUBSCRIBED": "INITIAL_BUY"
        case "DID_CHANGE_RENEWAL_STATUS": "AUTO_RENEW_DISABLED"
        case "EXPIRED": "VOLUNTARY"
        case "PRICE_INCREASE": "PENDING"
        case "RENEWAL_EXTENSION": "SUMMARY"
        case "EXTERNAL_PURCHASE_TOKEN": "UNREPORTED"
        default: nil
        }
    }

    /// The body member a notification of this type carries: "data", "summary",
    /// "externalPurchaseToken" or "appData" (`subtype` nil: the type's default).
    package static func body(notificationType: String, subtype: String? = nil) -> String {
        switch (notificationType, subtype ?? defaultSubtype(notificationType: notificationType)) {
        case ("RENEWAL_EXTENSION", "SUMMARY"): "summary"
        case ("EXTERNAL_PURCHASE_TOKEN", _): "externalPurchaseToken"
        case ("RESCIND_CONSENT", _): "appData"
        default: "data"
        }
    }

    /// The signed payloads a notification of this type nests, where, and of which kind, in
    /// Apple's order: `[(["data", "signedTransactionInfo"], .transaction), (["data",
    /// "signedRenewalInfo"], .renewalInfo)]` for subscription types, the transaction alone for
    /// one-time purchases, `appData.signedAppTransactionInfo` for `RESCIND_CONSENT`, and none for
    /// `TEST`, a `RENEWAL_EXTENSION` summary or an external purchase token.
    package static func nestedKinds(notificationType: String, subtype: String? = nil) -> [(
        path: [String], kind: MintKind
    )] {
        switch body(notificationType: notificationType, subtype: subtype) {
        case "appData": return [(["appData", "signedAppTransactionInfo"], .appTransaction)]
        case "data":
            let scenario = MintScenario(notificationType: notificationType, subtype: subtype)
            if notificationType == "TEST" { return [] }
            let transaction: (path: [String], kind: MintKind) = (["data", "signedTransactionInfo"], .transaction)
            if scenario.consumable { return [transaction] }
            return [transaction, (["data", "signedRenewalInfo"], .renewalInfo)]
        default: return []
        }
    }
}
