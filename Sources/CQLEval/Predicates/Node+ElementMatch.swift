import CQLKit

/// MongoDB's two forms of `$elemMatch` (EvaluationSemantics.md): some element of an
/// array value, **taken whole**, passes.
///
/// - `operators` (`{a: {$elemMatch: {$gt: 4, $lt: 6}}}`): the condition
///   reads the element itself (an empty path). Every element is tested, and
///   one element must pass every operator; an element that is itself an
///   array is compared as an array, without the one-level fan-out a field
///   gets (`[[5]]` does not match, `[5]` does).
/// - `fields` (`{a: {$elemMatch: {b: null}}}`, and `{}`): the condition reads
///   keys of the element. Only object (or array) elements are tested, as
///   documents, so a scalar element never passes (`{b: null}` does not
///   match `[5]`), and `{}` matches an array with at least one object or
///   array element.
enum ElementMatchForm: Sendable {
    case operators
    case fields

    /// The form of a `$elemMatch` condition: `operators` when some predicate
    /// in it reads the element itself (an empty path), else `fields`.
    init(_ condition: Condition) {
        self = ElementMatchForm.readsElement(condition) ? .operators : .fields
    }

    private static func readsElement(_ c: Condition) -> Bool {
        switch c.predicate {
        case .and(let items), .or(let items): return items.contains(where: readsElement)
        case .not(let inner): return readsElement(inner)
        case .constant, .relatedTo, .relationHolds, .aclGrants: return false
        case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _),
            .regex(let p, _, _), .like(let p, _), .prefix(let p, _), .text(let p, _, _), .containedBy(let p, _), .elementMatch(let p, _),
            .type(let p, _), .modulo(let p, _, _), .fullText(let p, _), .select(let p, _, _, _), .inQuery(let p, _, _),
            .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _), .withinCenterSphere(let p, _, _),
            .geoIntersects(let p, _):
            return p.components.isEmpty || p.components == [""]
        }
    }

    /// An element as the document the field form tests: an object as it is,
    /// an array as the object of its indexes (`[x, y]` is `{"0": x, "1": y}`,
    /// how MongoDB sees an array), and the typed values that are objects in
    /// REST form (Pointer, GeoPoint, File, Relation, how Parse stores them
    /// inside arrays) as that form; `nil` for anything else.
    static func document(_ element: Value) -> Value? {
        switch element {
        case .object, .typedObject:
            return element
        case .array(let items):
            var o = [String: Value](minimumCapacity: items.count)
            for (i, item) in items.enumerated() { o[String(i)] = item }
            return .object(o)
        case .pointer, .geoPoint, .file, .relation:
            return .object(ValueOrder.objectForm(element))
        default:
            return nil
        }
    }
}

extension Node {
    /// Whether `element` of an array passes an operator-form `$elemMatch`
    /// condition, the element taken whole: an array element is compared as
    /// an array where a field's value would fan out over its elements.
    /// Other elements need no care (the fan-out only applies to arrays).
    func matchesWhole(_ element: Value, _ context: EvalContext) -> Bool {
        guard case .array = element else { return matches(element, context) }
        switch self {
        case .constant(let b):
            return b
        case .and(let nodes):
            for n in nodes where !n.matchesWhole(element, context) { return false }
            return true
        case .or(let nodes):
            for n in nodes where n.matchesWhole(element, context) { return true }
            return false
        case .not(let n):
            let r = n.matchesWhole(element, context)
            return context.failure == nil ? !r : false
        case .equal(let path, let v) where path.steps.isEmpty:
            return Semantic.equal(element, v)
        case .isNull(let path) where path.steps.isEmpty:
            return false
        case .range(let path, let test) where path.steps.isEmpty:
            return test.passes(element)
        case .scalar(let path, let test) where path.steps.isEmpty:
            return test.passes(element)
        case .member(let path, let set) where path.steps.isEmpty:
            return set.contains(element)
        case .type(let path, let test) where path.steps.isEmpty:
            return test.passes(element)
        case .regex(let path, _) where path.steps.isEmpty, .prefix(let path, _) where path.steps.isEmpty, .modulo(let path, _, _) where path.steps.isEmpty,
            .pointerIn(let path, _, _) where path.steps.isEmpty:
            // An array is not a string, a number or a Pointer.
            return false
        case .geo(let path, let test) where path.steps.isEmpty:
            return Semantic.geoPoint(element).map(test.passes) ?? false
        default:
            // `size`, `exists`, a nested `$elemMatch`, `$containedBy` and
            // `$geoIntersects` already take an array value whole; a
            // predicate with a key path reads into the element.
            return matches(element, context)
        }
    }
}
