/// The fields Apple compares against a verifier's configuration, per payload kind.
///
/// See the table in Apple's verification algorithm: app identity (bundle ID,
/// app Apple ID) is compared before the environment.
public struct AppIdentity: Sendable, Equatable {
    /// Where the fields were read ("payload", "data", "summary", …).
    public var location: String
    public var bundleId: String?
    /// Whether this payload kind carries a bundle ID at all (renewal info does not).
    public var carriesBundleId: Bool
    public var appAppleId: Int64?
    /// Whether this payload kind carries an app Apple ID at all.
    public var carriesAppAppleId: Bool
    /// The environment as the payload states it (from `environment`, `receiptType`, or a `SANDBOX` prefix).
    public var environment: String?
    /// The field the environment was read from, for messages.
    public var environmentField: String

    /// The payload members `init(kind:payload:)` reads (besides a notification's bodies).
    static let payloadMembers = ["bundleId", "appAppleId", "environment", "receiptType"]

    /// Reads the compared fields from a payload of `kind`.
    public init(kind: PayloadKind, payload: [String: JSONValue]) {
        func int64(_ value: JSONValue?) -> Int64? {
            if case .integer(let number)? = value { return number }
            return nil
        }
        switch kind {
        case .transaction, .unknown:
            self.init(
                location: "payload", bundleId: payload["bundleId"]?.stringValue, carriesBundleId: true,
                appAppleId: int64(payload["appAppleId"]), carriesAppAppleId: kind == .unknown,
                environment: payload["environment"]?.stringValue, environmentField: "environment")
        case .renewalInfo:
            self.init(
                location: "payload", bundleId: nil, carriesBundleId: false, appAppleId: nil, carriesAppAppleId: false,
                environment: payload["environment"]?.stringValue, environmentField: "environment")
        case .realtimeRequest:
            self.init(
                location: "payload", bundleId: nil, carriesBundleId: false, appAppleId: int64(payload["appAppleId"]),
                carriesAppAppleId: true, environment: payload["environment"]?.stringValue,
                environmentField: "environment")
        case .appTransaction:
            self.init(
                location: "payload", bundleId: payload["bundleId"]?.stringValue, carriesBundleId: true,
                appAppleId: int64(payload["appAppleId"]), carriesAppAppleId: true,
                environment: payload["receiptType"]?.stringValue, environmentField: "receiptType")
        case .receipt:
            // A legacy receipt's JSON (verifyReceipt's names); its environment as field 0 says it.
            self.init(
                location: "receipt", bundleId: payload["bundle_id"]?.stringValue, carriesBundleId: true,
                appAppleId: nil, carriesAppAppleId: false, environment: payload["receipt_type"]?.stringValue,
                environmentField: "receipt_type")
        case .apiToken, .promotionalOffer, .introductoryOfferEligibility, .advancedCommerceRequest:
            // Developer-signed: the bundle ID is the `bid` claim; no app Apple ID, no environment.
            self.init(
                location: "payload", bundleId: payload["bid"]?.stringValue, carriesBundleId: true, appAppleId: nil,
                carriesAppAppleId: false, environment: nil, environmentField: "environment (developer tokens have none)"
            )
            bundleIdClaim = true
        case .notification:
            // The first body present decides, in `NotificationBody.all`'s order.
            for key in NotificationBody.names {
                guard let object = payload[key]?.objectValue else { continue }
                var environment = object["environment"]?.stringValue
                var environmentField = "\(key).environment"
                if key == "externalPurchaseToken" {
                    let purchaseId = object["externalPurchaseId"]?.stringValue
                    environment = purchaseId.map { $0.hasPrefix("SANDBOX") ? "Sandbox" : "Production" }
                    environmentField = "externalPurchaseToken.externalPurchaseId (SANDBOX prefix)"
                }
                self.init(
                    location: key, bundleId: object["bundleId"]?.stringValue, carriesBundleId: true,
                    appAppleId: int64(object["appAppleId"]), carriesAppAppleId: true,
                    environment: environment, environmentField: environmentField)
                return
            }
            self.init(
                location: "payload", bundleId: nil, carriesBundleId: true, appAppleId: nil, carriesAppAppleId: true,
                environment: nil, environmentField: "data.environment")
        }
    }

    init(
        location: String, bundleId: String?, carriesBundleId: Bool, appAppleId: Int64?, carriesAppAppleId: Bool,
        environment: String?, environmentField: String
    ) {
        self.location = location
        self.bundleId = bundleId
        self.carriesBundleId = carriesBundleId
        self.appAppleId = appAppleId
        self.carriesAppAppleId = carriesAppAppleId
        self.environment = environment
        self.environmentField = environmentField
    }

    /// Whether the bundle ID is a developer-signed token's `bid` claim.
    var bundleIdClaim = false

    /// The field path of the bundle ID, for messages ("data.bundleId", "bid").
    public var bundleIdField: String {
        bundleIdClaim ? "bid" : location == "payload" ? "bundleId" : "\(location).bundleId"
    }
    /// The field path of the app Apple ID, for messages.
    public var appAppleIdField: String { location == "payload" ? "appAppleId" : "\(location).appAppleId" }
}

/// App Store environments, as `--environment` takes them.
public enum Environment: String, Sendable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}
