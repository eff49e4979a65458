/// A JSON value, extended with the typed values of the LeanCloud / Parse REST
/// API.
///
/// Integers are kept exact (`Int64`) and apart from doubles: `1` and `1.0`
/// are different *literals* (`Value.int(1) != Value.double(1)`), although
/// every backend compares them as the same *number* (EvaluationSemantics.md).
///
/// Typed values have a REST form (`{"__type":"Date","iso":"..."}`); the JSON
/// reader yields plain objects, and ``Value/decodingTypedValues()`` turns
/// those objects into typed cases. The JSON writer prints typed cases back in
/// their REST form.
///
/// ```swift
/// let v = try JSONReader.parse(#"{"at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#)
///     .decodingTypedValues()
/// JSONWriter.string(v)   // {"at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}
/// ```
public enum Value: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([Value])
    case object([String: Value])
    /// `{"__type":"Date","iso":...}`; millisecond precision, UTC.
    case date(DateValue)
    /// `{"__type":"Pointer","className":...,"objectId":...}`
    indirect case pointer(Pointer)
    /// `{"__type":"GeoPoint","latitude":...,"longitude":...}`
    case geoPoint(GeoPoint)
    /// `{"__type":"Bytes","base64":...}`; the base64 text as given.
    case bytes(base64: String)
    /// `{"__type":"File","id":...}` (LeanCloud) or `{"__type":"File","name":...}` (Parse).
    indirect case file(FileReference)
    /// `{"__type":"Relation","className":...}`
    case relation(className: String)
    /// `{"__type":"Object","className":...,...fields}`: an included pointer.
    case typedObject(className: String, fields: [String: Value])
}

/// An instant with millisecond precision, as LeanCloud and Parse store dates.
///
/// ```swift
/// let d = ISODate.parse("2015-06-21T18:02:52.249Z")!
/// d.millisecondsSince1970   // 1434909772249
/// ISODate.format(d)         // "2015-06-21T18:02:52.249Z"
/// JSONWriter.string(.date(d))   // {"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}
/// ```
public struct DateValue: Hashable, Comparable, Sendable {
    public var millisecondsSince1970: Int64
    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }
    public static func < (a: DateValue, b: DateValue) -> Bool { a.millisecondsSince1970 < b.millisecondsSince1970 }
}

/// A reference to an object of another class.
///
/// ```swift
/// let post = Pointer(className: "Post", objectId: "51e3a359e4b015ead4d95ddc")
/// JSONWriter.string(.pointer(post))
/// // {"__type":"Pointer","className":"Post","objectId":"51e3a359e4b015ead4d95ddc"}
/// ```
public struct Pointer: Hashable, Sendable {
    public var className: String
    public var objectId: String
    public init(className: String, objectId: String) {
        self.className = className
        self.objectId = objectId
    }
}

/// A point on Earth in degrees. Ranges are validated by the binder and the
/// typed-value decoder, not by this initializer.
///
/// ```swift
/// let beijing = GeoPoint(latitude: 39.9, longitude: 116.4)
/// JSONWriter.string(.geoPoint(beijing))   // {"__type":"GeoPoint","latitude":39.9,"longitude":116.4}
/// GeoPoint(latitude: 91, longitude: 0).isValid   // false
/// ```
public struct GeoPoint: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
    /// Whether latitude is in −90...90 and longitude in −180...180.
    public var isValid: Bool {
        (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }
}

/// A stored file. LeanCloud names files by `id`, Parse by `name`; `url` is
/// informational and not part of identity.
///
/// ```swift
/// JSONWriter.string(.file(FileReference(id: "5a1b")))   // {"__type":"File","id":"5a1b"}
/// FileReference(id: "5a1b", url: "https://a") == FileReference(id: "5a1b")   // true
/// ```
public struct FileReference: Hashable, Sendable {
    public var id: String?
    public var name: String?
    public var url: String?
    public init(id: String? = nil, name: String? = nil, url: String? = nil) {
        self.id = id
        self.name = name
        self.url = url
    }
    public static func == (a: FileReference, b: FileReference) -> Bool { a.id == b.id && a.name == b.name }
    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(name)
    }
}

extension Value {
    /// The member `key` of an object (or typed object), else `nil`.
    public subscript(key: String) -> Value? {
        switch self {
        case .object(let o): return o[key]
        case .typedObject(_, let o): return o[key]
        default: return nil
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A short name of the value's JSON type, for messages ("a string", "an array").
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        case .date: return "a Date"
        case .pointer: return "a Pointer"
        case .geoPoint: return "a GeoPoint"
        case .bytes: return "Bytes"
        case .file: return "a File"
        case .relation: return "a Relation"
        case .typedObject: return "an Object"
        }
    }

    /// The value as a Double when it is a number.
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}
