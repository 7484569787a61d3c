#include "actors/failure.hpp"

#include <caf/all.hpp>

#include <exception>
#include <new>
#include <string>

namespace adarl {

void report_exceptions(caf::scheduled_actor* self, const char* name) {
  self->set_exception_handler([name](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      what = "out of memory (std::bad_alloc)";
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    return caf::make_error(caf::sec::runtime_error, std::string(name) + ": " + what);
  });
}

}  // namespace adarl
