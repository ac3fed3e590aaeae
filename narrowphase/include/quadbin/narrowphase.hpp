#pragma once
/// \file
/// Everything of the narrowphase layer.

#include <quadbin/narrowphase/contact.hpp>
#include <quadbin/narrowphase/hull.hpp>
