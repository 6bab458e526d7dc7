/// The fields Apple compares against a verifier's configuration, per payload kind.
///
/// See the table in Apple's verification algorithm: app identity (bundle ID,
/// app Apple ID) is compared before the environment.
package struct AppIdentity: Sendable, Equatable {
    /// Where the fields were read ("payload", "data", "summary", …).
    package var location: String
    package var bundleId: String?
    /// Whether this payload kind carries a bundle ID at all (renewal info does not).
    package var carriesBundleId: Bool
    package var appAppleId: Int64?
    /// Whether this payload kind carries an app Apple ID at all.
    package var carriesAppAppleId: Bool
    /// The environment as the payload states it (from `environment`, `receiptType`, or a `SANDBOX` prefix).
    package var environment: String?
    /// The field the environment was read from, for messages.
    package var environmentField: String

    /// The payload members `init(kind:payload:)` reads (besides a notification's bodies).
    static let payloadMembers = ["bundleId", "appAppleId", "environment", "receiptType"]

    /// Reads the compared fields from a payload of `kind`.
    package init(kind: PayloadKind, payload: [String: JSONValue]) {
        func int64(_ value: JSONValue?) -> Int64? {
            if case .integer(let number)? = value { return number }
            return nil
        }
        switch kind.schema.identity {
        case .members(
            let location, let bundleId, let appAppleId, let carriesAppAppleId, let environment, let environmentField,
            let bundleIdClaim):
            self.init(
                location: location, bundleId: bundleId.flatMap { payload[$0]?.stringValue },
                carriesBundleId: bundleId != nil, appAppleId: appAppleId.flatMap { int64(payload[$0]) },
                carriesAppAppleId: carriesAppAppleId, environment: environment.flatMap { payload[$0]?.stringValue },
                environmentField: environmentField)
            self.bundleIdClaim = bundleIdClaim
        case .notificationBody:
            // The first body present decides, in `NotificationBody.all`'s order: one that is not
            // an object (`"data": 5`) decides too, with nothing in it, never a later body.
            for key in NotificationBody.names {
                guard let value = payload[key], value != .null else { continue }
                let object = value.objectValue ?? [:]
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
    package var bundleIdField: String {
        bundleIdClaim ? "bid" : location == "payload" ? "bundleId" : "\(location).bundleId"
    }
    /// The field path of the app Apple ID, for messages.
    package var appAppleIdField: String { location == "payload" ? "appAppleId" : "\(location).appAppleId" }
}

/// App Store environments, as `--environment` takes them.
package enum Environment: String, Sendable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}
